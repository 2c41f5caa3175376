import type { Firestore } from 'firebase-admin/firestore';
import type { Config } from '../runtime/config';
import { UNKNOWN_CLIENT } from '../http/client-address';
import { computePreview } from './compute-preview';
import type { PreviewInput } from './preview-input';
import { countPreview } from './preview-limit';
import type { Preview } from './preview';
import { recentPostingsForPreview } from './shared-window';

export type PreviewDeps = { db: Firestore; config: Pick<Config, 'LINK_SECRET' | 'DIGEST_HOUR_UTC'>; now: Date };

/** `rate-limited`: this client's minute is used up (429); `busy`: every instance's reads of the week are (503). */
export type PreviewOutcome =
  { kind: 'shown'; preview: Preview } | { kind: 'rate-limited'; retryAfterSec: number } | { kind: 'busy'; retryAfterSec: number };

/**
 * One preview: count it against the client's limit, then the week's postings, shared with the
 * other previews (shared-window.ts), then the matching. Writes nothing but the limits' counters.
 * Without a trusted client address there is no per-client limit: every visitor would share one,
 * so one caller could refuse them all; the shared read's global budget bounds the cost instead.
 */
export async function runPreview(deps: PreviewDeps, input: { clientAddress: string; profile: PreviewInput }): Promise<PreviewOutcome> {
  if (input.clientAddress !== UNKNOWN_CLIENT) {
    const limit = await countPreview(deps.db, { clientAddress: input.clientAddress, secret: deps.config.LINK_SECRET, now: deps.now });
    if (!limit.allowed) return { kind: 'rate-limited', retryAfterSec: limit.retryAfterSec };
  }
  const window = await recentPostingsForPreview(deps.db, deps.now);
  if (window.kind === 'over-budget') return { kind: 'busy', retryAfterSec: window.retryAfterSec };
  return {
    kind: 'shown',
    preview: computePreview({ recent: window.recent, profile: input.profile, defaultDigestHour: deps.config.DIGEST_HOUR_UTC }),
  };
}
