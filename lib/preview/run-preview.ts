import type { Firestore } from 'firebase-admin/firestore';
import type { Config } from '../runtime/config';
import { computePreview } from './compute-preview';
import type { PreviewInput } from './preview-input';
import { countPreview } from './preview-limit';
import type { Preview } from './preview';
import { readRecentPostings } from './read-recent-postings';

export type PreviewDeps = { db: Firestore; config: Pick<Config, 'LINK_SECRET' | 'DIGEST_HOUR_UTC'>; now: Date };

export type PreviewOutcome = { kind: 'shown'; preview: Preview } | { kind: 'rate-limited'; retryAfterSec: number };

/**
 * One preview: count it against the client's limit, then one bounded read of the window's
 * postings (read-recent-postings.ts), then the matching. Writes nothing but the limit's counter.
 */
export async function runPreview(deps: PreviewDeps, input: { clientAddress: string; profile: PreviewInput }): Promise<PreviewOutcome> {
  const limit = await countPreview(deps.db, { clientAddress: input.clientAddress, secret: deps.config.LINK_SECRET, now: deps.now });
  if (!limit.allowed) return { kind: 'rate-limited', retryAfterSec: limit.retryAfterSec };
  const recent = await readRecentPostings(deps.db, { now: deps.now });
  return { kind: 'shown', preview: computePreview({ recent, profile: input.profile, defaultDigestHour: deps.config.DIGEST_HOUR_UTC }) };
}
