import type { Firestore } from 'firebase-admin/firestore';
import { shardBucketOf } from '../runtime/shard';
import { isLostPrecondition } from '../store/firestore-errors';
import { toDate } from '../store/timestamps';
import { commitGroups } from '../store/write-groups';
import { COLLECTIONS } from '../store/collections';
import { queuedDeliveriesPage } from './delivery';

/**
 * Queued items written before `shardBucket` existed carry none, and a shard's flush that asks for
 * its buckets (`shardBucket in [...]`) would never find them: a loss nobody sees. Until this walk
 * has recorded `doneAt`, sharded flushes keep the query over every due item (flush-due-digests.ts).
 *
 * The walk goes over the queued items in id order, a few pages a run from where the last run
 * stopped, and gives each one without a bucket the bucket of its uid. The write is not guarded by
 * the version read: the bucket follows from the uid, which never changes, so no concurrent change
 * can make it wrong, while a guarded write that lost to one (a flush moving the item to its next
 * slot, a reschedule) would leave a still-queued item without it for good. An item gone meanwhile
 * (NOT_FOUND) is left gone.
 *
 * It starts SETTLE_MS after the first run that found no cursor (`since`): a run of the previous
 * version still in flight then may still queue items without a bucket, and a walk that had passed
 * their place would call the queue done without them. Once the walk reaches the end it records
 * so, and every later run pays one read. A progress write never clears `doneAt`, so a slow walker
 * cannot undo a finished one. (After a rollback to a version that writes no bucket, delete
 * `cursors/backfill-shard-bucket`: the walk then runs again.)
 */
export const SHARD_BUCKET_BACKFILL = 'backfill-shard-bucket';
/** Longer than any run of the previous version can last (LOCK_TTL_MS is at most an hour). */
export const SETTLE_MS = 60 * 60_000;
const PAGE = 500;
const PAGES_PER_RUN = 4;

type Cursor = { since?: unknown; after?: string | null; doneAt?: unknown; updated?: number };

const cursorRef = (db: Firestore) => db.collection(COLLECTIONS.cursors).doc(SHARD_BUCKET_BACKFILL);

/**
 * With `walk` off (a dry run, a shard other than the first) it only reads whether the walk is done.
 * Returns whether every queued item carries its bucket.
 */
export async function backfillShardBucket(db: Firestore, input: { now: Date; walk: boolean }): Promise<{ updated: number; done: boolean }> {
  const cursor = (await cursorRef(db).get()).data() as Cursor | undefined;
  if (cursor?.doneAt) return { updated: 0, done: true };
  if (!input.walk) return { updated: 0, done: false };
  const since = toDate(cursor?.since);
  if (!since) {
    await cursorRef(db).set({ since: input.now, after: null, doneAt: null, updated: 0 });
    return { updated: 0, done: false };
  }
  if (input.now.getTime() < since.getTime() + SETTLE_MS) return { updated: 0, done: false };
  let after = cursor?.after ?? null;
  let updated = 0;
  for (let page = 0; page < PAGES_PER_RUN; page++) {
    const snap = await queuedDeliveriesPage(db, after, PAGE);
    const missing = snap.docs.filter((doc) => typeof doc.get('shardBucket') !== 'number' && typeof doc.get('uid') === 'string');
    const committed = await commitGroups(
      db,
      missing.map((doc) => ({
        size: 1,
        apply: (batch) => batch.update(doc.ref, { shardBucket: shardBucketOf(doc.get('uid') as string) }),
      })),
      isLostPrecondition,
    );
    updated += committed.filter(Boolean).length;
    if (snap.size < PAGE) {
      await cursorRef(db).set({ after: null, doneAt: input.now, updated: (cursor?.updated ?? 0) + updated }, { merge: true });
      return { updated, done: true };
    }
    after = snap.docs[snap.docs.length - 1].id;
  }
  await cursorRef(db).set({ after, updated: (cursor?.updated ?? 0) + updated }, { merge: true });
  return { updated, done: false };
}
