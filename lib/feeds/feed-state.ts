import { FieldValue, type Firestore } from 'firebase-admin/firestore';
import { toDate } from '../store/timestamps';
import { COLLECTIONS } from '../store/collections';
import type { Validators } from './source-adapter';

/** feeds/{source}: the validators for the next conditional request and the health an operator reads. */
export type FeedState = {
  kind: string;
  label: string | null;
  url: string | null;
  etag: string | null;
  lastModified: string | null;
  lastFetchedAt: Date | null;
  lastError: string | null;
  /** From a 429/503's Retry-After: the source is not asked before this. */
  retryAfter: Date | null;
};

export const feedStatesCollection = (db: Firestore) => db.collection(COLLECTIONS.feedStates);

export function readFeedState(data: FirebaseFirestore.DocumentData | undefined): FeedState | null {
  if (!data) return null;
  return {
    kind: data.kind ?? 'feed',
    label: data.label ?? null,
    url: data.url ?? null,
    etag: data.etag ?? null,
    lastModified: data.lastModified ?? null,
    lastFetchedAt: toDate(data.lastFetchedAt),
    lastError: data.lastError ?? null,
    retryAfter: toDate(data.retryAfter),
  };
}

type SourceDescription = { source: string; kind?: string; label?: string; url: string | null; now: Date };

function described(input: SourceDescription) {
  return { kind: input.kind ?? 'feed', ...(input.label ? { label: input.label } : {}), url: input.url };
}

export async function recordFeedSuccess(
  db: Firestore,
  input: SourceDescription & { validators?: Validators | null; postings: number | null; created?: number },
) {
  await feedStatesCollection(db)
    .doc(input.source)
    .set(
      {
        ...described(input),
        ...(input.validators !== undefined
          ? { etag: input.validators?.etag ?? null, lastModified: input.validators?.lastModified ?? null }
          : {}),
        lastFetchedAt: input.now,
        lastSuccessAt: input.now,
        lastStatus: input.postings === null ? 'not-modified' : 'ok',
        ...(input.postings !== null ? { lastItemCount: input.postings } : {}),
        ...(input.created ? { lastNewPostingAt: input.now } : {}),
        lastError: null,
        retryAfter: null,
        consecutiveFailures: 0,
      },
      { merge: true },
    );
}

export async function recordFeedFailure(db: Firestore, input: SourceDescription & { error: string; retryAfterSeconds?: number }) {
  await feedStatesCollection(db)
    .doc(input.source)
    .set(
      {
        ...described(input),
        lastFetchedAt: input.now,
        lastStatus: 'error',
        lastError: input.error,
        lastErrorAt: input.now,
        retryAfter: input.retryAfterSeconds ? new Date(input.now.getTime() + input.retryAfterSeconds * 1000) : null,
        consecutiveFailures: FieldValue.increment(1),
      },
      { merge: true },
    );
}
