import { describe, expect, it } from 'vitest';
import { allShardTags, ownsSubscriber, shardOf, shardTag } from '../../lib/runtime/shard';

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
