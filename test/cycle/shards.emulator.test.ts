import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock } from '../../lib/cycle/lock';
import { shardOf, type Shard } from '../../lib/runtime/shard';
import { postingsCollection } from '../../lib/feeds/postings-collection';
import { outboxCollection } from '../../lib/outbox/outbox-row';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

const NOW = '2026-11-30T06:00:00Z';
let h: Harness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const shardsOf = (count: number): Shard[] => Array.from({ length: count }, (_, index) => ({ index, count }));
const cronOf = (shard: Shard, now: string) => h.cron({ now, shard: String(shard.index), shards: String(shard.count) });

/** `n` subscribers to react postings, addresses user0…; returns uid by address. */
async function subscribers(n: number, mode: 'instant' | 'daily', prefix = 'user'): Promise<Map<string, string>> {
  const uids = new Map<string, string>();
  for (let i = 0; i < n; i++) {
    const email = `${prefix}${i}@example.com`;
    uids.set(email, await h.subscribe({ email, keywords: ['react'], mode }));
  }
  return uids;
}

async function postingStates() {
  const snap = await postingsCollection(h.db).get();
  return snap.docs.map((d) => ({ state: d.data().matchState, shards: [...(d.data().matchedShards ?? [])].sort() }));
}

describe('shards (?shard=k&shards=n)', () => {
  it('shards called together reach every subscriber exactly once: one alert each, one digest each, none twice', async () => {
    const instant = await subscribers(24, 'instant');
    const daily = await subscribers(9, 'daily', 'daily');
    for (const k of [0, 1, 2]) expect([...instant.values()].some((uid) => shardOf(uid, 3) === k)).toBe(true);
    h.serveFeed(postingsAbout('react', 3, { at: new Date(NOW) }));

    const runs = await Promise.all(shardsOf(3).map((shard) => cronOf(shard, NOW)));
    expect(runs.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(runs.map((r) => r.body.shard)).toEqual(['0-of-3', '1-of-3', '2-of-3']);
    // Each shard claimed only its own subscribers: together, each instant subscriber once.
    expect(runs.reduce((n, r) => n + r.body.instantEmails, 0)).toBe(24);
    expect(runs.reduce((n, r) => n + r.body.queued, 0)).toBe(9 * 3);
    const alerts = await h.inbox();
    expect(alerts.map((m) => m.to[0]).sort()).toEqual([...instant.keys()].sort());
    for (const mail of alerts) expect(mail.subject).toMatch(/3 new/);
    expect((await postingStates()).every((p) => p.state === 'matched')).toBe(true);

    // Again, with an unsharded run in the mix: nothing new for anyone.
    const again = await Promise.all([
      ...shardsOf(3).map((shard) => cronOf(shard, '2026-11-30T06:15:00Z')),
      h.cron({ now: '2026-11-30T06:15:00Z' }),
    ]);
    expect(again.map((r) => r.body.emailsSent)).toEqual([0, 0, 0, 0]);

    // The digest hour: each shard flushes its own daily subscribers.
    const flush = await Promise.all(shardsOf(3).map((shard) => cronOf(shard, '2026-11-30T08:05:00Z')));
    expect(flush.reduce((n, r) => n + r.body.digests, 0)).toBe(9);
    const mail = await h.inbox();
    const digests = mail.filter((m) => m.to[0].startsWith('daily'));
    expect(digests.map((m) => m.to[0]).sort()).toEqual([...daily.keys()].sort());
    expect(mail).toHaveLength(24 + 9);
  });

  it('a posting stays open until every shard has matched it, so a shard that runs later still reaches its subscribers', async () => {
    const instant = await subscribers(12, 'instant');
    const ofShard1 = [...instant].filter(([, uid]) => shardOf(uid, 2) === 1).map(([email]) => email);
    expect(ofShard1.length).toBeGreaterThan(0);
    h.serveFeed(postingsAbout('react', 2, { at: new Date(NOW) }));

    const first = await cronOf({ index: 0, count: 2 }, NOW);
    expect(first.body.instantEmails).toBe(12 - ofShard1.length);
    expect(await postingStates()).toEqual([
      { state: 'pending', shards: ['0-of-2'] },
      { state: 'pending', shards: ['0-of-2'] },
    ]);
    // Shard 0 again: the postings are still open, but it has matched them, so it claims nothing.
    const repeat = await cronOf({ index: 0, count: 2 }, '2026-11-30T06:15:00Z');
    expect(repeat.body).toMatchObject({ matches: 0, emailsSent: 0 });

    const second = await cronOf({ index: 1, count: 2 }, '2026-11-30T06:30:00Z');
    expect(second.body.instantEmails).toBe(ofShard1.length);
    expect(await postingStates()).toEqual([
      { state: 'matched', shards: ['0-of-2', '1-of-2'] },
      { state: 'matched', shards: ['0-of-2', '1-of-2'] },
    ]);
    expect((await h.inbox()).map((m) => m.to[0]).sort()).toEqual([...instant.keys()].sort());
  });

  it('a shard steps past postings other shards still hold open, so a stopped caller cannot starve the rest', async () => {
    await subscribers(6, 'instant');
    // 2,100 postings (more than a run takes) shard 0 matched long ago and shard 1 never did (its caller stopped), sorting before every posting a feed can store.
    const stale = postingsAbout('react', 2_100, { at: new Date(NOW), prefix: 'aaa' });
    for (let i = 0; i < stale.length; i += 400) {
      const batch = h.db.batch();
      stale.slice(i, i + 400).forEach((item, j) =>
        batch.set(postingsCollection(h.db).doc(`00-old_${String(i + j).padStart(5, '0')}`), {
          id: `00-old_${i + j}`,
          source: 'old',
          guid: item.guid!,
          title: item.title,
          url: null,
          description: '',
          budget: null,
          skills: [],
          publishedAt: new Date(NOW),
          matchState: 'pending',
          matchedShards: ['0-of-2'],
          runId: 'old',
          fetchedAt: new Date(NOW),
          expireAt: new Date('2026-12-30T00:00:00Z'),
        }),
      );
      await batch.commit();
    }
    h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW), prefix: 'fresh' }));

    const run = await cronOf({ index: 0, count: 2 }, NOW);
    expect(run.body).toMatchObject({ jobsNew: 1, matches: expect.any(Number) });
    expect(run.body.matches).toBeGreaterThan(0);
    expect(run.body.instantEmails).toBe(run.body.matches);
  });

  it('each shard has its own lock: a held shard is skipped, the others run', async () => {
    await subscribers(6, 'instant');
    h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW) }));
    const held = await acquireLock(h.db, { name: 'scan-0-of-2', owner: 'someone else', now: new Date(NOW), ttlMs: 600_000 });
    expect(held.acquired).toBe(true);

    const [zero, one] = await Promise.all([cronOf({ index: 0, count: 2 }, NOW), cronOf({ index: 1, count: 2 }, NOW)]);
    expect(zero.body).toMatchObject({ skipped: 'previous run in flight', lockOwner: 'someone else' });
    expect(one.body).toMatchObject({ shard: '1-of-2', partial: false });
    const runs = await h.db.collection('runs').get();
    expect(runs.docs.map((d) => d.get('shard'))).toEqual(['1-of-2']);
  });

  it("a shard sends only its own subscribers' pending emails; their own shard sends them", async () => {
    const instant = await subscribers(10, 'instant');
    h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW) }));
    // An unsharded run claims every alert, and the provider's quota hands them all back untried.
    await h.setFaults({ quotaExceeded: 'daily' });
    await h.run({ now: NOW });
    await h.setFaults({});
    expect((await outboxCollection(h.db).where('status', '==', 'pending').get()).size).toBe(10);

    const zero = await h.run({ now: '2026-11-30T06:15:00Z', shard: { index: 0, count: 2 } });
    const sentByZero = (await h.inbox()).map((m) => m.to[0]);
    expect(sentByZero.sort()).toEqual(
      [...instant]
        .filter(([, uid]) => shardOf(uid, 2) === 0)
        .map(([email]) => email)
        .sort(),
    );
    expect(zero.emailsSent).toBe(sentByZero.length);

    await h.run({ now: '2026-11-30T06:30:00Z', shard: { index: 1, count: 2 } });
    expect((await h.inbox()).map((m) => m.to[0]).sort()).toEqual([...instant.keys()].sort());
  });
});
