import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Due } from '../../lib/ledger/due-items';
import { dueSubscribers } from '../../lib/ledger/read-due-items';
import { deliveryRef, type Delivery } from '../../lib/ledger/delivery';
import { shardBucketOf } from '../../lib/runtime/shard';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { createHarness, type Harness } from '../support/harness';

/**
 * The flush's due query reads slot by slot (its range field leads the index, so it scans only what
 * is due), yet hands on each subscriber once, with every item due by the flush's clock, best first:
 * a subscriber with items due at two slots (a run missed, a flush cut short) gets one digest of
 * them all, never one now and the rest a period late.
 */

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const at = (instant: string) => new Date(`2026-11-30T${instant}:00Z`);

async function queue(uid: string, jobId: string, dueAt: Date, score: number) {
  const delivery: Delivery = {
    uid,
    jobId,
    mode: 'daily',
    status: 'queued',
    score,
    reasons: ['keyword: react'],
    emailKey: null,
    digestDate: dueAt.toISOString().slice(0, 10),
    digestDueAt: dueAt,
    shardBucket: shardBucketOf(uid),
    reason: null,
    runId: 'run-test',
    createdAt: at('05:00'),
    sentAt: null,
    expireAt: new Date('2026-12-30T00:00:00Z'),
  };
  await deliveryRef(h.db, uid, jobId).set(delivery);
}

async function collect(input: Parameters<typeof dueSubscribers>[1]): Promise<Due[]> {
  const out: Due[] = [];
  for await (const batch of dueSubscribers(h.db, input)) out.push(...batch);
  return out;
}
const shape = (due: Due[]) =>
  due.map((d) => ({ uid: d.uid, items: d.items.map((i) => i.delivery.jobId) })).sort((a, b) => a.uid.localeCompare(b.uid));

describe('dueSubscribers across slots', () => {
  it('a subscriber due at two slots comes once, whole and best first, however small the subscriber batches and pages', async () => {
    // a: due at 07:00 and 08:00 (and 09:00, not yet); b: 08:00 only; c: 07:00 only; d: 07:00 and 08:00.
    await queue('a', 'a1', at('07:00'), 50);
    await queue('a', 'a2', at('08:00'), 90);
    await queue('a', 'a3', at('07:00'), 70);
    await queue('a', 'a4', at('09:00'), 99);
    await queue('b', 'b1', at('08:00'), 60);
    await queue('c', 'c1', at('07:00'), 40);
    await queue('c', 'c2', at('07:00'), 45);
    await queue('d', 'd1', at('08:00'), 30);
    await queue('d', 'd2', at('07:00'), 80);
    const expected = [
      { uid: 'a', items: ['a2', 'a3', 'a1'] },
      { uid: 'b', items: ['b1'] },
      { uid: 'c', items: ['c2', 'c1'] },
      { uid: 'd', items: ['d2', 'd1'] },
    ];
    const now = at('08:05');
    for (const sizes of [
      {},
      { batchSize: 1 },
      { batchSize: 1, pageSize: 1 },
      { batchSize: 2, pageSize: 2 },
      { batchSize: 3, pageSize: 4 },
    ]) {
      const due = await collect({ now, ...sizes });
      expect(shape(due), JSON.stringify(sizes)).toEqual(expected);
      expect(due.length, JSON.stringify(sizes)).toBe(new Set(due.map((d) => d.uid)).size);
    }
    // Before any slot nothing is due, and nothing comes.
    expect(await collect({ now: at('06:59') })).toEqual([]);
  });

  it("yesterday's digest, missed, and today's go out as one digest at today's slot", async () => {
    const uid = await h.subscribe({ email: 'missed@example.com', keywords: ['react'], mode: 'daily' });
    // Queued on the 29th for its 08:00 slot; then no run until after the 30th's.
    h.serveFeed(postingsAbout('react', 2, { at: new Date('2026-11-29T05:00:00Z'), prefix: 'y' }));
    expect((await h.cron({ now: '2026-11-29T06:00:00Z' })).body.queued).toBe(2);
    // The next run claims three more, due at the 30th's 08:00 slot, and flushes both slots at once.
    h.serveFeed(postingsAbout('react', 3, { at: at('05:00'), prefix: 't' }));
    const run = await h.cron({ now: '2026-11-30T08:05:00Z' });
    expect(run.body.queued).toBe(3);
    expect(run.body.digests).toBe(1);
    const rows = await h.db.collection('emails').where('uid', '==', uid).where('kind', '==', 'digest').get();
    expect(rows.docs.map((d) => [d.id.endsWith('2026-11-30'), (d.get('deliveryIds') as string[]).length])).toEqual([[true, 5]]);
  });
});
