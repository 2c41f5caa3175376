import { FieldValue } from 'firebase-admin/firestore';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Due } from '../../lib/ledger/due-items';
import { dueSubscribers } from '../../lib/ledger/read-due-items';
import { deliveriesCollection } from '../../lib/ledger/delivery';
import { shardBucketOf, shardOf, type Shard } from '../../lib/runtime/shard';
import { instrumentFirestore } from '../../scripts/bench/firestore-counter';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { createHarness, type Harness } from '../support/harness';
import { migrateStore, storeAtSchemaVersion } from '../support/schema';

/**
 * A shard's flush asks the store for its own subscribers' due items (`shardBucket in [...]`): every
 * queued item carries its bucket in a store at the code's schema version (items from before
 * buckets get theirs from `scout migrate`, and runs refuse until then). A shard whose count does not
 * divide SHARD_BUCKETS reads every due item and keeps its own. Either way every digest goes out exactly once.
 */

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const DAY = '2026-11-30';
const at = (time: string, day = DAY) => `${day}T${time}:00Z`;
const shardsOf = (count: number): Shard[] => Array.from({ length: count }, (_, index) => ({ index, count }));
const cronOf = (shard: Shard | null, now: string) =>
  h.cron(shard ? { now, shard: String(shard.index), shards: String(shard.count) } : { now });

/** `n` daily subscribers to react postings; their uids. */
async function dailySubscribers(n: number): Promise<string[]> {
  const uids: string[] = [];
  for (let i = 0; i < n; i++) uids.push(await h.subscribe({ email: `daily${i}@example.com`, keywords: ['react'], mode: 'daily' }));
  return uids;
}

/** `count` react postings first seen on `day`, claimed by an unsharded run at 06:00: queued for that day's digest. */
async function queuePostings(prefix: string, count: number, day = DAY) {
  h.serveFeed(postingsAbout('react', count, { at: new Date(at('05:00', day)), prefix }));
  const claimed = await cronOf(null, at('06:00', day));
  expect(claimed.body.digests).toBe(0);
  return claimed.body.queued as number;
}

async function queuedItems() {
  return (await deliveriesCollection(h.db).where('status', '==', 'queued').get()).docs;
}

/** What a deployment from before buckets left: queued items without one, in a store at the version before the shard-bucket migration. */
async function stripBuckets() {
  const batch = h.db.batch();
  for (const doc of await queuedItems()) batch.update(doc.ref, { shardBucket: FieldValue.delete() });
  await batch.commit();
  await storeAtSchemaVersion(h.db, 2);
}

/** Digests received, by recipient. */
async function digestsByRecipient(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const mail of await h.inbox()) counts.set(mail.to[0], (counts.get(mail.to[0]) ?? 0) + 1);
  return counts;
}

const everyoneOnce = (n: number) => new Map(Array.from({ length: n }, (_, i) => [`daily${i}@example.com`, 1]));

/** One shard's cron run, alone, with what it read from deliveries/. */
async function countedRun(shard: Shard | null, now: string) {
  const counter = instrumentFirestore();
  try {
    const run = await cronOf(shard, now);
    return { body: run.body, deliveryReads: counter.byCollection().deliveries?.reads ?? 0 };
  } finally {
    counter.restore();
  }
}

describe('a sharded flush reads its own share of the due items', () => {
  it('once the queue is bucketed, each of 4 shards reads about a quarter of the queued items, and together they send every digest once', async () => {
    const uids = await dailySubscribers(40);
    expect(await queuePostings('a', 3)).toBe(120);
    // Queued by the current code: each item carries its bucket from the start.
    for (const doc of await queuedItems()) expect(doc.get('shardBucket')).toBe(shardBucketOf(doc.get('uid')));

    const own = shardsOf(4).map((shard) => uids.filter((uid) => shardOf(uid, 4) === shard.index).length);
    expect(own.every((n) => n > 0)).toBe(true);
    const runs = [];
    for (const shard of shardsOf(4)) runs.push(await countedRun(shard, at('08:05')));

    expect(runs.map((r) => r.body.digests)).toEqual(own);
    // Its own 3 items per subscriber (each of its 2 queries of 30 buckets finds some), never another shard's.
    expect(runs.map((r) => r.deliveryReads)).toEqual(own.map((n) => 3 * n));
    expect(await digestsByRecipient()).toEqual(everyoneOnce(40));
    expect(await queuedItems()).toHaveLength(0);
  });

  it('legacy items without a bucket: every shard refuses to run until `scout migrate` stamps them, then each finds its own: once each', async () => {
    await dailySubscribers(40);
    await queuePostings('a', 2);
    await stripBuckets();

    // The upgrade's first runs, before the migration: refused (recorded failed), nothing sent, nothing lost.
    const refused = await Promise.all(shardsOf(4).map((shard) => cronOf(shard, at('08:05'))));
    expect(refused.map((r) => r.status)).toEqual([500, 500, 500, 500]);
    const runs = (await h.db.collection('runs').where('status', '==', 'failed').get()).docs;
    expect(runs).toHaveLength(4);
    for (const run of runs) expect(run.get('errors')[0]).toMatch(/schema version 2 and this code needs \d+: run `scout migrate`/);
    expect(await h.inbox()).toHaveLength(0);
    expect((await queuedItems()).filter((doc) => doc.get('shardBucket') === undefined)).toHaveLength(80);

    const migrated = await migrateStore(h.db, { now: new Date(at('08:10')) });
    expect(migrated.applied).toContainEqual(expect.objectContaining({ name: 'shard-bucket', changed: 80 }));
    for (const doc of await queuedItems()) expect(doc.get('shardBucket')).toBe(shardBucketOf(doc.get('uid')));

    const sent = await Promise.all(shardsOf(4).map((shard) => cronOf(shard, at('08:15'))));
    expect(sent.reduce((n, r) => n + r.body.digests, 0)).toBe(40);
    expect(await digestsByRecipient()).toEqual(everyoneOnce(40));
    expect(await queuedItems()).toHaveLength(0);
  });

  it('a shard count that does not divide 16 (7) reads every due item, and still reaches everyone once', async () => {
    await dailySubscribers(40);
    await queuePostings('a', 2);

    const runs = [];
    for (const shard of shardsOf(7)) runs.push({ queued: (await queuedItems()).length, ...(await countedRun(shard, at('08:05'))) });
    expect(runs[0].queued).toBe(80);
    for (const run of runs) expect(run.deliveryReads).toBe(run.queued);
    expect(runs.reduce((n, r) => n + r.body.digests, 0)).toBe(40);
    expect(await digestsByRecipient()).toEqual(everyoneOnce(40));
  });

  it('the 4 shards and an unsharded run flushing at the same moment: each digest once (the digest row create() decides)', async () => {
    await dailySubscribers(40);
    await queuePostings('a', 3);

    const runs = await Promise.all([...shardsOf(4).map((shard) => cronOf(shard, at('08:05'))), cronOf(null, at('08:05'))]);
    expect(runs.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(runs.reduce((n, r) => n + r.body.digests, 0)).toBe(40);
    expect(await digestsByRecipient()).toEqual(everyoneOnce(40));
    const rows = (await h.db.collection('emails').where('kind', '==', 'digest').get()).docs.map((d) => d.id);
    expect(rows).toHaveLength(40);
    expect(await queuedItems()).toHaveLength(0);

    // And again, all at once: nothing more for anyone.
    const again = await Promise.all([...shardsOf(4).map((shard) => cronOf(shard, at('08:20'))), cronOf(null, at('08:20'))]);
    expect(again.map((r) => r.body.digests)).toEqual([0, 0, 0, 0, 0]);
    expect(await digestsByRecipient()).toEqual(everyoneOnce(40));
  });
});

describe('dueSubscribers by bucket', () => {
  /** Every subscriber batch the query yields, flattened: the subscriber and their item ids, in the order they came. */
  async function collect(input: Parameters<typeof dueSubscribers>[1]): Promise<Due[]> {
    const out: Due[] = [];
    for await (const batch of dueSubscribers(h.db, input)) {
      expect(batch.length).toBeLessThanOrEqual(input.batchSize ?? Infinity);
      out.push(...batch);
    }
    return out;
  }
  const shape = (due: Due[]) => due.map((d) => ({ uid: d.uid, items: d.items.map((i) => i.id) }));
  const byUid = (due: Due[]) => [...due].sort((a, b) => a.uid.localeCompare(b.uid));

  it('with tiny pages and subscriber batches, over several queries of 30 buckets: each subscriber whole, once, best first, as the unbucketed query has them', async () => {
    await dailySubscribers(30);
    await queuePostings('a', 3);
    const now = new Date(at('08:05'));
    for (const count of [2, 3, 4, 5]) {
      for (const shard of shardsOf(count)) {
        const bucketed = await collect({ now, shard, bucketed: true, pageSize: 2, batchSize: 4 });
        const unbucketed = await collect({ now, shard, pageSize: 2, batchSize: 4 });
        expect(bucketed.length).toBeGreaterThan(0);
        expect(bucketed.every((d) => shardOf(d.uid, count) === shard.index)).toBe(true);
        expect(new Set(bucketed.map((d) => d.uid)).size).toBe(bucketed.length);
        expect(bucketed.every((d) => d.items.length === 3)).toBe(true);
        for (const d of bucketed) {
          const scores = d.items.map((i) => i.delivery.score);
          expect(scores).toEqual([...scores].sort((a, b) => b - a));
        }
        expect(shape(byUid(bucketed))).toEqual(shape(byUid(unbucketed)));
      }
    }
  });
});
