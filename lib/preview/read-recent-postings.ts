import type { Firestore } from 'firebase-admin/firestore';
import { postingsCollection, type StoredPosting } from '../feeds/postings-collection';
import { addDays } from '../store/timestamps';
import { PREVIEW_MAX_POSTINGS, PREVIEW_WINDOW_DAYS } from './preview';

export type RecentPostings = {
  /** The window's postings, one per real job: copies (`duplicate`) are left out, their canonical stands for them. */
  postings: StoredPosting[];
  /** Documents the query returned (and Firestore bills): never more than `max`. */
  read: number;
  /** The window held at least `max` postings: the newest `max` were read, older ones not. */
  truncated: boolean;
};

/**
 * The postings Scout stored in the `windowDays` before `now`, newest first, in one query capped at
 * `max` documents: a preview's whole read of jobs/, however many postings the store holds. By
 * `fetchedAt` (when the posting was first stored), a single-field range Firestore indexes by
 * itself. A copy of a job found on a second board is stored as `duplicate` beside its canonical
 * posting (store-postings.ts); it is read (the query cannot skip it without a composite index)
 * but not matched, so a job listed on three boards counts once, as its subscriber would get it once.
 */
export async function readRecentPostings(db: Firestore, input: { now: Date; windowDays?: number; max?: number }): Promise<RecentPostings> {
  const max = input.max ?? PREVIEW_MAX_POSTINGS;
  const since = addDays(input.now, -(input.windowDays ?? PREVIEW_WINDOW_DAYS));
  const snap = await postingsCollection(db)
    .where('fetchedAt', '>=', since)
    .where('fetchedAt', '<=', input.now)
    .orderBy('fetchedAt', 'desc')
    .limit(max)
    .get();
  const postings = snap.docs.map((doc) => doc.data()).filter((posting) => posting.matchState !== 'duplicate');
  return { postings, read: snap.size, truncated: snap.size >= max };
}
