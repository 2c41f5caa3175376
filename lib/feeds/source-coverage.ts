import type { Firestore } from 'firebase-admin/firestore';
import { DAY_MS, toDate } from '../store/timestamps';
import { feedStatesCollection } from './feed-state';

/**
 * What the sources covered, as a digest tells its reader ("Checked 412 postings from 6 sources;
 * 1 source unreachable since Tuesday"), so a quiet digest reads as a quiet market, not a broken
 * service:
 * - `sources`: sources asked in the last two days (a disabled source is probed once a day, so it
 *   still counts; one removed from SOURCES drops out after two days);
 * - `postings`: what those sources listed at their last full read, for each one read successfully
 *   in the last 24 hours (its lastItemCount; a 304 confirms the listing it counted);
 * - `unreachable`: those whose last fetch failed (failing or disabled; a silent source answers, so
 *   it is not unreachable), and the first failure among them.
 */
export type SourceCoverage = { postings: number; sources: number; unreachable: number; unreachableSince: Date | null };

const ASKED_WITHIN_MS = 2 * DAY_MS;
const LISTED_WITHIN_MS = DAY_MS;

/** One query over feeds/ (a range on lastFetchedAt, the fields it needs): once per flush, never per digest. */
export async function readSourceCoverage(db: Firestore, now: Date): Promise<SourceCoverage> {
  const snap = await feedStatesCollection(db)
    .where('lastFetchedAt', '>=', new Date(now.getTime() - ASKED_WITHIN_MS))
    .select('lastFetchedAt', 'lastSuccessAt', 'lastItemCount', 'health', 'consecutiveFailures', 'failingSince', 'lastErrorAt')
    .get();
  const coverage: SourceCoverage = { postings: 0, sources: 0, unreachable: 0, unreachableSince: null };
  for (const doc of snap.docs) {
    const askedAt = toDate(doc.get('lastFetchedAt'));
    // A run that started after this flush's instant (an overlapping run) is not what the digest covers.
    if (!askedAt || askedAt > now) continue;
    coverage.sources += 1;
    const listedAt = toDate(doc.get('lastSuccessAt'));
    const listed: unknown = doc.get('lastItemCount');
    if (listedAt && now.getTime() - listedAt.getTime() <= LISTED_WITHIN_MS && typeof listed === 'number') coverage.postings += listed;
    const health: unknown = doc.get('health');
    const failing = health === 'failing' || health === 'disabled' || (health === undefined && (doc.get('consecutiveFailures') ?? 0) > 0);
    if (!failing) continue;
    coverage.unreachable += 1;
    const since = toDate(doc.get('failingSince')) ?? toDate(doc.get('lastErrorAt'));
    if (since && (!coverage.unreachableSince || since < coverage.unreachableSince)) coverage.unreachableSince = since;
  }
  return coverage;
}
