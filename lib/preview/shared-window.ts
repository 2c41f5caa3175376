import type { Firestore } from 'firebase-admin/firestore';
import { countAndRead, rateLimitsCollection } from '../http/rate-limit';
import { addDays, DAY_MS } from '../store/timestamps';
import { PREVIEW_WINDOW_DAYS } from './preview';
import { readRecentPostings, type RecentPostings } from './read-recent-postings';

/**
 * Every preview matches against the same thing, the week's postings, and reading them costs up to
 * PREVIEW_MAX_POSTINGS documents. So one read serves every preview an instance answers for a
 * little while, and a budget kept in Firestore bounds how often all instances together read it:
 *
 * - `freshMs`: an instance reuses its read this long (a preview can miss postings stored in the
 *   last 30 seconds, which no one typing can tell). Kept in memory only as a cache: an instance
 *   that lost it, or never had it, reads again within the budget.
 * - `readsPerMinute`: reads of the window per UTC minute, all instances together, counted in
 *   `rateLimits/preview-window-reads_m{minute}` before the read (a server-applied increment read
 *   back, like the other limits, so a burst can be refused one early, never admitted one late).
 * - `staleMs`: past the budget, an instance answers from a read up to this old rather than not at all;
 *   without one the preview is refused for everyone until the minute ends (503 with Retry-After).
 *
 * Each instance's concurrent misses share one read, so a burst on a cold instance reads once. An
 * instance refused by the budget does not count again until the minute ends: the counter is one
 * document every instance writes, so past the budget it takes one write per instance a minute,
 * not one per preview.
 */
export const PREVIEW_WINDOW_SHARING = { freshMs: 30_000, staleMs: 5 * 60_000, readsPerMinute: 10, budgetWindowMs: 60_000 } as const;

export type SharedWindow = { kind: 'read'; recent: RecentPostings } | { kind: 'over-budget'; retryAfterSec: number };

type Held = { recent: RecentPostings; readAt: number };

/** Per Firestore client, so two apps (or two tests) in one process never see each other's postings. */
const held = new WeakMap<Firestore, Held>();
const reading = new WeakMap<Firestore, Promise<SharedWindow>>();
/** The end of the budget's minute in which this instance was refused: until then it asks nothing. */
const refusedUntil = new WeakMap<Firestore, number>();

/** The week's postings as of `now`: from this instance's recent read, or a new one within the budget. */
export async function recentPostingsForPreview(db: Firestore, now: Date): Promise<SharedWindow> {
  const fresh = usable(held.get(db), now, PREVIEW_WINDOW_SHARING.freshMs);
  if (fresh) return { kind: 'read', recent: fresh };
  let pending = reading.get(db);
  if (!pending) {
    pending = readWithinBudget(db, now).finally(() => reading.delete(db));
    reading.set(db, pending);
  }
  const result = await pending;
  // The shared read may have been made for another request's instant: cut it to this one's window.
  return result.kind === 'read' ? { kind: 'read', recent: within(result.recent, now) } : result;
}

async function readWithinBudget(db: Firestore, now: Date): Promise<SharedWindow> {
  const { budgetWindowMs, readsPerMinute, staleMs } = PREVIEW_WINDOW_SHARING;
  const window = Math.floor(now.getTime() / budgetWindowMs);
  const windowEnd = (window + 1) * budgetWindowMs;
  const overBudget = (): SharedWindow => {
    const stale = usable(held.get(db), now, staleMs);
    if (stale) return { kind: 'read', recent: stale };
    return { kind: 'over-budget', retryAfterSec: Math.max(1, Math.ceil((windowEnd - now.getTime()) / 1000)) };
  };
  const until = refusedUntil.get(db);
  if (until === windowEnd) return overBudget();
  const reads = await countAndRead(rateLimitsCollection(db).doc(`preview-window-reads_m${window}`), {
    kind: 'preview-window-reads-minute',
    expireAt: new Date(windowEnd + DAY_MS),
  });
  if (reads > readsPerMinute) {
    refusedUntil.set(db, windowEnd);
    return overBudget();
  }
  const recent = await readRecentPostings(db, { now });
  held.set(db, { recent, readAt: now.getTime() });
  return { kind: 'read', recent };
}

/** A held read, if it is no older than `maxAgeMs` at `now` (and not from `now`'s future: a clock set back reads again). */
function usable(entry: Held | undefined, now: Date, maxAgeMs: number): RecentPostings | null {
  if (!entry) return null;
  const age = now.getTime() - entry.readAt;
  return age >= 0 && age < maxAgeMs ? within(entry.recent, now) : null;
}

function within(recent: RecentPostings, now: Date): RecentPostings {
  const since = addDays(now, -PREVIEW_WINDOW_DAYS).getTime();
  const postings = recent.postings.filter((p) => p.fetchedAt.getTime() >= since && p.fetchedAt.getTime() <= now.getTime());
  return postings.length === recent.postings.length ? recent : { ...recent, postings };
}
