import { createHash } from 'node:crypto';

/**
 * `?shard=k&shards=n`: several callers split the subscribers between them, each taking the
 * subscribers whose stable hash falls in its part. A shard has its own lock (`locks/scan-k-of-n`)
 * and run record; the ledger is shared, so a subscriber reached by two shards (or by a shard and
 * an unsharded run) is still emailed once.
 */
export type Shard = { index: number; count: number };

/** More callers than this would each read every subscriber for a sliver of the work. */
export const MAX_SHARDS = 64;

/** `k-of-n`: names the shard's lock, its run records, and its mark on the postings it has matched. */
export const shardTag = (shard: Shard) => `${shard.index}-of-${shard.count}`;

/** The shard a subscriber belongs to among `count`: a hash of the uid, so it never changes while `count` does not. */
export function shardOf(uid: string, count: number): number {
  return createHash('sha256').update(uid).digest().readUInt32BE(0) % count;
}

/** Whether a run of this shard (or an unsharded run, which owns everybody) handles this subscriber. */
export const ownsSubscriber = (shard: Shard | undefined, uid: string) => !shard || shardOf(uid, shard.count) === shard.index;

/** Every tag of the shards that together cover all subscribers: a posting is closed once all of them matched it. */
export const allShardTags = (count: number) => Array.from({ length: count }, (_, index) => shardTag({ index, count }));
