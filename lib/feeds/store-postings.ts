import type { Firestore } from 'firebase-admin/firestore';
import { createDocuments, readMany } from '../ledger/create-documents';
import { addDays } from '../ledger/timestamps';
import type { Posting } from './posting';
import { postingsCollection, type StoredPosting } from './postings-collection';

/**
 * Stores the postings not seen before (jobs/ upsert, new ones only) and returns how many were new.
 * A posting published before the retention window is ignored here, before matching: its ledger
 * lines may already be pruned, and it must never look new again.
 */
export async function storeNewPostings(
  db: Firestore,
  input: { postings: Posting[]; now: Date; runId: string; retentionDays: number },
): Promise<number> {
  const cutoff = addDays(input.now, -input.retentionDays);
  const fresh = input.postings.filter((p) => !p.publishedAt || p.publishedAt >= cutoff);
  const refs = fresh.map((p) => postingsCollection(db).doc(p.id));
  const snaps = await readMany(db, refs);
  const unseen = fresh.filter((_, i) => !snaps[i].exists);
  const expireAt = addDays(input.now, input.retentionDays);
  const { created } = await createDocuments(
    db,
    unseen.map((posting) => ({
      ref: postingsCollection(db).doc(posting.id),
      data: { ...posting, matchState: 'pending', runId: input.runId, fetchedAt: input.now, expireAt } satisfies StoredPosting,
    })),
    input.runId,
  );
  return created.length;
}

/** Postings stored but not yet matched, including those a crashed run left behind. */
export async function loadPendingPostings(
  db: Firestore,
  input: { now: Date; retentionDays: number; limit: number },
): Promise<StoredPosting[]> {
  const snap = await postingsCollection(db).where('matchState', '==', 'pending').limit(input.limit).get();
  const cutoff = addDays(input.now, -input.retentionDays);
  return snap.docs.map((d) => d.data()).filter((p) => !p.publishedAt || p.publishedAt >= cutoff);
}

/** Closes matching for these postings once their deliveries are claimed. */
export async function markPostingsMatched(db: Firestore, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    const batch = db.batch();
    for (const id of ids.slice(i, i + 500)) batch.update(postingsCollection(db).doc(id), { matchState: 'matched' });
    await batch.commit();
  }
}
