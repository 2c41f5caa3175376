import { shardBucketOf } from '../../runtime/shard';
import { isLostPrecondition } from '../../store/firestore-errors';
import { commitAtomicWrites } from '../../store/atomic-writes';
import { queuedDeliveriesPage } from '../delivery';
import { earlierWalkDone } from './digest-due';
import type { Migration, MigrationContext } from './migration';

const EARLIER_CURSOR = 'backfill-shard-bucket';
const PAGE = 500;

/**
 * Queued items written before `shardBucket` existed carry none, and a shard's flush asks for its
 * own buckets (`shardBucket in [...]`): it would never find them, a loss nobody sees. Until this
 * migration every cycle walked the queue and, until the walk was done, sharded flushes read every
 * due item; now the cycle runs only on a store at the current version, so its flushes always ask
 * for their buckets. A store whose cycles finished that walk (`cursors/backfill-shard-bucket` has
 * `doneAt`) needs nothing more.
 *
 * The write is not guarded by the version read: the bucket follows from the uid, which never
 * changes, so no concurrent change can make it wrong, while a guarded write that lost to one (a
 * flush moving the item to its next slot) would leave a still-queued item without it for good. An
 * item gone meanwhile (NOT_FOUND) is left gone. Code that writes no bucket must not run cycles
 * during or after the walk: `scout migrate` is run with the scheduler paused after the deploy
 * (docs/operations.md#schema-version), as the older per-run walk waited an hour for such runs.
 */
export const shardBucket: Migration = {
  version: 3,
  name: 'shard-bucket',
  changes: 'gives each queued item without `shardBucket` the bucket of its uid, sha256(uid) mod 16',
  why: "a shard's flush asks for its own buckets only, so a queued item without one would never be sent",
  apply: (ctx) => backfillShardBucket(ctx),
};

async function backfillShardBucket(ctx: MigrationContext): Promise<{ changed: number; note?: string }> {
  const { db } = ctx;
  if (await earlierWalkDone(db, EARLIER_CURSOR)) return { changed: 0, note: `already done by the cycles (cursors/${EARLIER_CURSOR})` };
  let after = ctx.resumeAfter;
  let changed = 0;
  for (;;) {
    const snap = await queuedDeliveriesPage(db, after, PAGE);
    const missing = snap.docs.filter((doc) => typeof doc.get('shardBucket') !== 'number' && typeof doc.get('uid') === 'string');
    const committed = await commitAtomicWrites(
      db,
      missing.map((doc) => ({
        size: 1,
        apply: (batch) => batch.update(doc.ref, { shardBucket: shardBucketOf(doc.get('uid') as string) }),
      })),
      isLostPrecondition,
    );
    changed += committed.filter(Boolean).length;
    if (snap.size < PAGE) return { changed };
    after = snap.docs[snap.docs.length - 1].id;
    await ctx.checkpoint(after);
  }
}
