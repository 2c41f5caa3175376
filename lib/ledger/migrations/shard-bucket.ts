import { shardBucketOf } from '../../runtime/shard';
import type { Migration } from './migration';
import { walkQueuedItems } from './walk-queued-items';

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
  apply: (ctx) =>
    walkQueuedItems(ctx, {
      earlierCursor: 'backfill-shard-bucket',
      writesFor: (page) =>
        page
          .filter((doc) => typeof doc.get('shardBucket') !== 'number' && typeof doc.get('uid') === 'string')
          .map((doc) => ({ size: 1, apply: (batch) => batch.update(doc.ref, { shardBucket: shardBucketOf(doc.get('uid') as string) }) })),
    }),
};
