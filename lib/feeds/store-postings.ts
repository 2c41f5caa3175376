import type { DocumentSnapshot, Firestore } from 'firebase-admin/firestore';
import { createDocuments, MAX_BATCH_WRITES, readMany } from '../ledger/create-documents';
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
  await keepListedPostings(db, { snaps, now: input.now, expireAt, retentionDays: input.retentionDays });
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

/**
 * A posting the feed still lists must outlive it: otherwise the TTL (or prune) would delete its
 * document while the feed still carries it, and the next fetch would store it as new — a second
 * alert for an undated item. So a listed posting's expiry moves forward whenever less than half
 * the retention window is left: about one write per posting per RETENTION_DAYS / 2, not per fetch.
 */
async function keepListedPostings(
  db: Firestore,
  input: { snaps: DocumentSnapshot<StoredPosting>[]; now: Date; expireAt: Date; retentionDays: number },
): Promise<void> {
  const renewBefore = addDays(input.now, input.retentionDays / 2);
  const stale = input.snaps.filter((snap) => snap.exists && (snap.data()!.expireAt ?? input.now) < renewBefore);
  for (let i = 0; i < stale.length; i += MAX_BATCH_WRITES) {
    const batch = db.batch();
    for (const snap of stale.slice(i, i + MAX_BATCH_WRITES)) batch.update(snap.ref, { expireAt: input.expireAt, lastListedAt: input.now });
    await batch.commit();
  }
}
