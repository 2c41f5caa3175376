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

/**
 * Buckets a queued delivery is stamped with (`shardBucket`), so a shard's flush can ask the store
 * for its own subscribers' items (`shardBucket in [...]`) instead of reading everyone's. For n
 * dividing 16 (1, 2, 4, 8, 16: the counts that also halve the match index's reads),
 * hash % 16 % n === hash % n, so bucket b belongs wholly to shard b % n. Few buckets, because an
 * `in` runs as one query per value: 16 ÷ n of them. (240 buckets, tried first, made a shard of 4
 * ask 60 values: 9 s a page on the emulator against 1 s for the query over every due item.)
 * Never change it: stored items carry buckets of this modulus.
 */
export const SHARD_BUCKETS = 16;

/** A subscriber's bucket among SHARD_BUCKETS: the same hash as shardOf, so shardBucketOf(uid) % n === shardOf(uid, n) when n divides 16. */
export const shardBucketOf = (uid: string): number => shardOf(uid, SHARD_BUCKETS);

/**
 * The buckets of a shard, when its items can be asked for by bucket: a shard of n > 1 where n
 * divides SHARD_BUCKETS (null otherwise: its flush reads every due item and keeps its own).
 */
export function shardBuckets(shard: Shard | undefined): number[] | null {
  if (!shard || shard.count <= 1 || SHARD_BUCKETS % shard.count !== 0) return null;
  return Array.from({ length: SHARD_BUCKETS / shard.count }, (_, i) => shard.index + i * shard.count);
}

/** Whether a run of this shard (or an unsharded run, which owns everybody) handles this subscriber. */
export const ownsSubscriber = (shard: Shard | undefined, uid: string) => !shard || shardOf(uid, shard.count) === shard.index;

/** Every tag of the shards that together cover all subscribers: a posting is closed once all of them matched it. */
export const allShardTags = (count: number) => Array.from({ length: count }, (_, index) => shardTag({ index, count }));

/**
 * The match index's shard counts (MATCH_INDEX_SHARDS; lib/subscribers/match-index-layout.ts):
 * powers of two from SHARD_BUCKETS up, so every run shard count that divides 16 divides the index's
 * count too and a run shard reads only its own index shards.
 */
export const DEFAULT_MATCH_INDEX_SHARDS = SHARD_BUCKETS;
export const MAX_MATCH_INDEX_SHARDS = 4_096;
export const isMatchIndexShardCount = (n: number) =>
  Number.isInteger(n) && n >= DEFAULT_MATCH_INDEX_SHARDS && n <= MAX_MATCH_INDEX_SHARDS && (n & (n - 1)) === 0;
