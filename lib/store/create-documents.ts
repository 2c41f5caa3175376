import type { DocumentReference, DocumentSnapshot, Firestore } from 'firebase-admin/firestore';
import pLimit from 'p-limit';
import { isAlreadyExists } from './firestore-errors';

/** Firestore's limit on writes in one batch. */
export const MAX_BATCH_WRITES = 500;
/** Batches in flight at once: the commits are independent, and one stream of them leaves the store idle between round trips. */
export const COMMIT_CONCURRENCY = 4;
/** getAll takes many refs per call; batches of them keep each request and its answer modest. */
const READ_BATCH = 300;

export type NewDocument<T> = { ref: DocumentReference<T>; data: T };

/**
 * Reads many documents in few round trips: the existence check before a claim is one getAll per
 * batch of refs, never one get() per candidate.
 */
export async function readMany<T>(db: Firestore, refs: DocumentReference<T>[]): Promise<DocumentSnapshot<T>[]> {
  const snaps: DocumentSnapshot<T>[] = [];
  for (let i = 0; i < refs.length; i += READ_BATCH) {
    const batch = refs.slice(i, i + READ_BATCH);
    // getAll is typed for plain refs, but each snapshot still reads through its ref's converter.
    if (batch.length > 0) snaps.push(...((await db.getAll(...(batch as DocumentReference[]))) as DocumentSnapshot<T>[]));
  }
  return snaps;
}

/**
 * Creates every document that does not exist yet. Claims go out in batches (a few in flight at
 * once); a batch that loses a race to a concurrent run (ALREADY_EXISTS) falls back to one create()
 * per document, so each document is won by exactly one writer. A document that exists but carries
 * our runId was ours: its commit answer was lost and the retry saw our own write.
 */
export async function createDocuments<T extends { runId: string }>(db: Firestore, docs: NewDocument<T>[], runId: string) {
  const won = new Array<boolean>(docs.length).fill(false);
  const commit = pLimit(COMMIT_CONCURRENCY);
  const commits: Promise<void>[] = [];
  for (let i = 0; i < docs.length; i += MAX_BATCH_WRITES) {
    const start = i;
    const part = docs.slice(start, start + MAX_BATCH_WRITES);
    commits.push(
      commit(async () => {
        const batch = db.batch();
        for (const doc of part) batch.create(doc.ref, doc.data);
        try {
          await batch.commit();
          won.fill(true, start, start + part.length);
          return;
        } catch (error) {
          if (!isAlreadyExists(error)) throw error;
        }
        const outcomes = await Promise.all(part.map((doc) => createOne(doc, runId)));
        outcomes.forEach((ours, j) => (won[start + j] = ours));
      }),
    );
  }
  await Promise.all(commits);
  return { created: docs.filter((_, i) => won[i]), existed: docs.filter((_, i) => !won[i]) };
}

async function createOne<T extends { runId: string }>(doc: NewDocument<T>, runId: string): Promise<boolean> {
  try {
    await doc.ref.create(doc.data);
    return true;
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    const current = await doc.ref.get();
    return current.get('runId') === runId;
  }
}
