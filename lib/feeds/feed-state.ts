import { FieldValue, type Firestore } from 'firebase-admin/firestore';
import { toDate } from '../store/timestamps';
import { COLLECTIONS } from '../store/collections';

/** feeds/{source}: the validators for the next conditional GET and the health an operator reads. */
export type FeedState = {
  url: string;
  etag: string | null;
  lastModified: string | null;
  lastFetchedAt: Date | null;
  lastError: string | null;
};

export const feedStatesCollection = (db: Firestore) => db.collection(COLLECTIONS.feedStates);

export function readFeedState(data: FirebaseFirestore.DocumentData | undefined): FeedState | null {
  if (!data) return null;
  return {
    url: data.url,
    etag: data.etag ?? null,
    lastModified: data.lastModified ?? null,
    lastFetchedAt: toDate(data.lastFetchedAt),
    lastError: data.lastError ?? null,
  };
}

export async function recordFeedSuccess(
  db: Firestore,
  input: { source: string; url: string; etag?: string | null; lastModified?: string | null; now: Date; postings: number | null },
) {
  await feedStatesCollection(db)
    .doc(input.source)
    .set(
      {
        url: input.url,
        ...(input.etag !== undefined ? { etag: input.etag, lastModified: input.lastModified ?? null } : {}),
        lastFetchedAt: input.now,
        lastStatus: input.postings === null ? 'not-modified' : 'ok',
        ...(input.postings !== null ? { lastItemCount: input.postings } : {}),
        lastError: null,
        consecutiveFailures: 0,
      },
      { merge: true },
    );
}

export async function recordFeedFailure(db: Firestore, input: { source: string; url: string; error: string; now: Date }) {
  await feedStatesCollection(db)
    .doc(input.source)
    .set(
      { url: input.url, lastStatus: 'error', lastError: input.error, lastErrorAt: input.now, consecutiveFailures: FieldValue.increment(1) },
      { merge: true },
    );
}
