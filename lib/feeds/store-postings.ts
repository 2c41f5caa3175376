import {
  FieldPath,
  FieldValue,
  type DocumentSnapshot,
  type Firestore,
  type QueryDocumentSnapshot,
  type UpdateData,
} from 'firebase-admin/firestore';
import { allShardTags, shardTag, type Shard } from '../runtime/shard';
import { createDocuments, MAX_BATCH_WRITES, readMany } from '../store/create-documents';
import { addDays } from '../store/timestamps';
import type { Posting } from './posting';
import { postingsCollection, type StoredPosting } from './postings-collection';

/**
 * Stores the postings not seen before (jobs/ upsert, new ones only), at most `maxNew` of them, and
 * returns how many were new and how many were held back. A posting published before the retention
 * window is ignored here, before matching: its ledger lines may already be pruned, and it must
 * never look new again. Postings past `maxNew` are left for the next run, in feed order (feeds list
 * their newest first): one source cannot flood a run, and nothing is dropped for it.
 */
export async function storeNewPostings(
  db: Firestore,
  input: { postings: Posting[]; now: Date; runId: string; retentionDays: number; maxNew: number },
): Promise<{ created: number; held: number }> {
  const cutoff = addDays(input.now, -input.retentionDays);
  const fresh = input.postings.filter((p) => !p.publishedAt || p.publishedAt >= cutoff);
  const refs = fresh.map((p) => postingsCollection(db).doc(p.id));
  const snaps = await readMany(db, refs);
  const unseen = fresh.filter((_, i) => !snaps[i].exists);
  const taken = unseen.slice(0, input.maxNew);
  const expireAt = addDays(input.now, input.retentionDays);
  await keepListedPostings(db, { snaps, now: input.now, expireAt, retentionDays: input.retentionDays });
  const { created } = await createDocuments(
    db,
    taken.map((posting) => ({
      ref: postingsCollection(db).doc(posting.id),
      data: { ...posting, matchState: 'pending', runId: input.runId, fetchedAt: input.now, expireAt } satisfies StoredPosting,
    })),
    input.runId,
  );
  return { created: created.length, held: unseen.length - taken.length };
}

/** Postings read per query while looking for those a shard has not matched yet. */
const PENDING_SCAN_BATCH = 1_000;
/** A shard skips at most this many postings other shards still hold open before giving the rest to the next run. */
const PENDING_SCAN_MAX = 20_000;

/**
 * Postings stored but not yet matched, including those a crashed run left behind. A shard skips
 * the postings it already matched (they stay `pending` until every shard has), reading past them
 * so a shard whose caller stopped cannot starve the others.
 */
export async function loadPendingPostings(
  db: Firestore,
  input: { now: Date; retentionDays: number; limit: number; shard?: Shard },
): Promise<StoredPosting[]> {
  const cutoff = addDays(input.now, -input.retentionDays);
  const tag = input.shard && shardTag(input.shard);
  const query = postingsCollection(db).where('matchState', '==', 'pending').orderBy(FieldPath.documentId());
  const found: StoredPosting[] = [];
  let cursor: QueryDocumentSnapshot<StoredPosting> | undefined;
  for (let scanned = 0; found.length < input.limit && scanned < PENDING_SCAN_MAX;) {
    const batchSize = tag ? PENDING_SCAN_BATCH : input.limit - found.length;
    const batch = await (cursor ? query.startAfter(cursor) : query).limit(batchSize).get();
    for (const doc of batch.docs) {
      const posting = doc.data();
      if (posting.publishedAt && posting.publishedAt < cutoff) continue;
      if (tag && posting.matchedShards?.includes(tag)) continue;
      if (found.length < input.limit) found.push(posting);
    }
    scanned += batch.size;
    if (batch.size < batchSize) break;
    cursor = batch.docs[batch.docs.length - 1];
  }
  return found;
}

/**
 * Closes matching for these postings once their deliveries are claimed. A shard only marks the
 * postings as matched by itself; the posting closes when the shards of its count have all marked
 * it. Marks only grow, so whichever shard marks last sees the full set and closes it.
 */
export async function markPostingsMatched(db: Firestore, ids: string[], shard?: Shard): Promise<void> {
  if (shard) {
    await updateAll(db, ids, () => ({ matchedShards: FieldValue.arrayUnion(shardTag(shard)) }));
    const snaps = await readMany(
      db,
      ids.map((id) => postingsCollection(db).doc(id)),
    );
    const everyShard = allShardTags(shard.count);
    ids = snaps.filter((s) => s.exists && everyShard.every((t) => s.data()!.matchedShards?.includes(t))).map((s) => s.id);
  }
  await updateAll(db, ids, () => ({ matchState: 'matched' }));
}

async function updateAll(db: Firestore, ids: string[], change: () => UpdateData<StoredPosting>): Promise<void> {
  for (let i = 0; i < ids.length; i += MAX_BATCH_WRITES) {
    const batch = db.batch();
    for (const id of ids.slice(i, i + MAX_BATCH_WRITES)) batch.update(postingsCollection(db).doc(id), change());
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
