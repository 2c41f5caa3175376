import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  allShardTags,
  MAX_SHARDS,
  ownsSubscriber,
  SHARD_BUCKETS,
  shardBucketOf,
  shardBuckets,
  shardOf,
  shardTag,
} from '../../lib/runtime/shard';
import { DEFAULT_MATCH_INDEX_SHARDS } from '../../lib/subscribers/match-index-layout';

const uids = Array.from({ length: 2_000 }, (_, i) => Buffer.from(`user${i}@example.com`).toString('base64url'));

describe('shard of a subscriber', () => {
  it('puts every subscriber in exactly one shard of n', () => {
    for (const count of [1, 2, 3, 7, 64]) {
      for (const uid of uids) {
        const owners = Array.from({ length: count }, (_, index) => index).filter((index) => ownsSubscriber({ index, count }, uid));
        expect(owners).toEqual([shardOf(uid, count)]);
      }
    }
  });

  it('is stable: the same uid lands in the same shard on every call (and machine)', () => {
    expect(shardOf('YWRhQGV4YW1wbGUuY29t', 4)).toBe(shardOf('YWRhQGV4YW1wbGUuY29t', 4));
    // Pinned, so a change of hash (which would move subscribers between shards mid-flight) is a visible decision.
    expect([1, 2, 3, 4, 5].map((n) => shardOf('YWRhQGV4YW1wbGUuY29t', n))).toEqual([0, 1, 1, 3, 1]);
  });

  it('spreads subscribers evenly enough that no shard carries much more than its share', () => {
    const sizes = [0, 0, 0, 0];
    for (const uid of uids) sizes[shardOf(uid, 4)] += 1;
    for (const size of sizes) expect(size).toBeGreaterThan(400);
  });

  it('an unsharded run owns everybody', () => {
    expect(uids.every((uid) => ownsSubscriber(undefined, uid))).toBe(true);
  });

  it('names shards k-of-n', () => {
    expect(shardTag({ index: 2, count: 3 })).toBe('2-of-3');
    expect(allShardTags(3)).toEqual(['0-of-3', '1-of-3', '2-of-3']);
  });
});

describe('shard buckets', () => {
  const divisors = Array.from({ length: SHARD_BUCKETS }, (_, i) => i + 1).filter((n) => SHARD_BUCKETS % n === 0);

  it('16 buckets: the shard counts that split them whole are those that also halve the match index', () => {
    expect(divisors).toEqual([1, 2, 4, 8, 16]);
    expect(SHARD_BUCKETS).toBe(DEFAULT_MATCH_INDEX_SHARDS);
  });

  it("a subscriber's bucket names their shard for every count that divides 16", () => {
    for (const uid of uids) {
      const bucket = shardBucketOf(uid);
      expect(bucket).toBeGreaterThanOrEqual(0);
      expect(bucket).toBeLessThan(SHARD_BUCKETS);
      for (const n of divisors) expect(bucket % n, `${uid} of ${n}`).toBe(shardOf(uid, n));
    }
  });

  it("a shard's buckets: those b with b % n === k, every bucket in exactly one shard of n", () => {
    for (const count of divisors.filter((n) => n > 1 && n <= MAX_SHARDS)) {
      const all = Array.from({ length: count }, (_, index) => shardBuckets({ index, count })!);
      for (const [index, buckets] of all.entries()) {
        expect(buckets).toHaveLength(SHARD_BUCKETS / count);
        expect(buckets.every((b) => b % count === index)).toBe(true);
      }
      expect(all.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: SHARD_BUCKETS }, (_, b) => b));
    }
    for (const uid of uids.slice(0, 200)) expect(shardBuckets({ index: shardOf(uid, 4), count: 4 })).toContain(shardBucketOf(uid));
  });

  it('none for an unsharded run, a shard of one, or a count that does not divide 16 (those read every due item)', () => {
    expect(shardBuckets(undefined)).toBeNull();
    expect(shardBuckets({ index: 0, count: 1 })).toBeNull();
    for (const count of [3, 7, 9, 11, 64]) expect(shardBuckets({ index: 0, count })).toBeNull();
  });

  it('firestore.indexes.json carries the index of the bucketed due query, beside the one of the unbucketed', () => {
    const config = JSON.parse(readFileSync(join(__dirname, '../../firestore.indexes.json'), 'utf8')) as {
      indexes: { collectionGroup: string; queryScope: string; fields: { fieldPath: string; order: string }[] }[];
    };
    const deliveries = config.indexes
      .filter((index) => index.collectionGroup === 'deliveries' && index.queryScope === 'COLLECTION')
      .map((index) => index.fields.map((f) => `${f.fieldPath} ${f.order === 'DESCENDING' ? 'desc' : 'asc'}`).join(', '));
    // dueSubscribers (lib/ledger/read-due-items.ts): status ==, [shardBucket in], digestDueAt <=, orderBy digestDueAt, uid, score desc.
    expect(deliveries).toContain('status asc, digestDueAt asc, uid asc, score desc');
    expect(deliveries).toContain('status asc, shardBucket asc, digestDueAt asc, uid asc, score desc');
  });
});
