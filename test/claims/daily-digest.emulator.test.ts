import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InjectedCrash, noFailpoints, type Failpoint } from '../../lib/runtime/failpoints';
import { runCycle } from '../../lib/cycle/run-cycle';
import { flushDueDigests } from '../../lib/claims/flush-due-digests';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { deliveriesOf } from '../support/deliveries';
import { createHarness, type Harness } from '../support/harness';
import { leapingClock } from '../support/leaping-clock';
import type { TestItem } from '../../scripts/sample-feed/rss-feed';

let h: Harness;
const DANA = 'dana@example.com';

beforeEach(async () => {
  h = await createHarness();
  await h.subscribe({ email: DANA, keywords: ['python', 'django'], mode: 'daily' });
});
afterEach(async () => h.close());

/** `strong` postings name both keywords in the title (higher score); the rest mention python only in the body. */
function postings(prefix: string, count: number, strong: number, at: string): TestItem[] {
  return Array.from({ length: count }, (_, i) => ({
    guid: `${prefix}-${i}`,
    title: i < strong ? `Python Django backend ${prefix}-${i}` : `Backend work ${prefix}-${i}`,
    link: `https://jobs.example.com/${prefix}/${i}`,
    description: i < strong ? 'A django app.' : 'Mostly python scripts.',
    pubDate: new Date(new Date(at).getTime() - (i + 1) * 60_000).toUTCString(),
  }));
}

const uidOf = async (email: string) => subscriberId(email);

const itemsIn = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('* '))
    .map((line) => line.slice(2));

describe('daily digest', () => {
  it('nothing before 08:00; one digest of the top 20 by score after; nothing more that day; next day only new items', async () => {
    h.serveFeed(postings('day1', 25, 5, '2026-11-30T06:00:00Z'));
    expect((await h.cron({ now: '2026-11-30T06:00:00Z' })).body).toMatchObject({ queued: 25, digests: 0 });
    expect((await h.cron({ now: '2026-11-30T07:59:00Z' })).body.digests).toBe(0);
    expect(await h.inbox()).toHaveLength(0);

    expect((await h.cron({ now: '2026-11-30T08:05:00Z' })).body.digests).toBe(1);
    let inbox = await h.inbox();
    expect(inbox).toHaveLength(1);
    expect(inbox[0].subject).toMatch(/^25 in your digest: /);
    const items = itemsIn(inbox[0].text!);
    expect(items).toHaveLength(20);
    // The five two-keyword postings score highest and lead the digest.
    expect(items.slice(0, 5).every((t) => t.startsWith('Python Django backend'))).toBe(true);
    expect(inbox[0].text).toContain('5 more matched with a lower score');

    h.serveFeed([...postings('day1', 25, 5, '2026-11-30T06:00:00Z'), ...postings('late', 3, 0, '2026-11-30T09:00:00Z')]);
    expect((await h.cron({ now: '2026-11-30T09:00:00Z' })).body).toMatchObject({ queued: 3, digests: 0 });
    expect((await h.cron({ now: '2026-11-30T23:45:00Z' })).body.digests).toBe(0);
    expect(await h.inbox()).toHaveLength(1);

    expect((await h.cron({ now: '2026-12-01T08:00:00Z' })).body.digests).toBe(1);
    inbox = await h.inbox();
    expect(inbox).toHaveLength(2);
    expect(itemsIn(inbox[1].text!).map((t) => t.split(' ').pop())).toEqual(expect.arrayContaining(['late-0', 'late-1', 'late-2']));
    expect(itemsIn(inbox[1].text!)).toHaveLength(3);

    const outcomes = await h.deliveryOutcomes();
    const byStatus = (s: string) => outcomes.filter((d) => d.status === s).length;
    expect({ sent: byStatus('sent'), skipped: byStatus('skipped'), queued: byStatus('queued') }).toEqual({
      sent: 23,
      skipped: 5,
      queued: 0,
    });
  });

  it('postings first fetched by the 08:01 run are in the 08:01 digest (the next digest not yet claimed, even in the same run)', async () => {
    h.serveFeed(postings('early', 2, 1, '2026-11-30T06:00:00Z'));
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    h.serveFeed([...postings('early', 2, 1, '2026-11-30T06:00:00Z'), ...postings('edge', 3, 0, '2026-11-30T08:00:00Z')]);
    expect((await h.cron({ now: '2026-11-30T08:01:00Z' })).body).toMatchObject({ queued: 3, digests: 1 });
    const inbox = await h.inbox();
    expect(inbox).toHaveLength(1);
    expect(itemsIn(inbox[0].text!).map((t) => t.split(' ').pop())).toEqual(
      expect.arrayContaining(['early-0', 'early-1', 'edge-0', 'edge-1', 'edge-2']),
    );
    expect((await h.deliveryOutcomes()).filter((d) => d.status !== 'sent')).toEqual([]);
  });

  it("with a once-a-day scheduler every item goes out in that day's run, not a day later", async () => {
    h.serveFeed(postings('d1', 2, 0, '2026-11-30T07:00:00Z'));
    expect((await h.cron({ now: '2026-11-30T08:00:00Z' })).body).toMatchObject({ queued: 2, digests: 1 });
    h.serveFeed([...postings('d1', 2, 0, '2026-11-30T07:00:00Z'), ...postings('d2', 2, 0, '2026-12-01T07:00:00Z')]);
    expect((await h.cron({ now: '2026-12-01T08:00:00Z' })).body).toMatchObject({ queued: 2, digests: 1 });
    const inbox = await h.inbox();
    expect(
      inbox.map((m) =>
        itemsIn(m.text!)
          .map((t) => t.split(' ').pop())
          .sort(),
      ),
    ).toEqual([
      ['d1-0', 'd1-1'],
      ['d2-0', 'd2-1'],
    ]);
  });

  it('runs racing at 08:01 over new postings: one digest today, and every posting in exactly one digest', async () => {
    h.serveFeed(postings('race', 4, 2, '2026-11-30T08:00:00Z'));
    // Distinct lock names take the lock out of the picture: the ledger alone must hold.
    await Promise.all(Array.from({ length: 4 }, (_, i) => h.run({ now: '2026-11-30T08:01:00Z', lockName: `race-${i}` })));
    // Whatever a racing claim queued after the digest was claimed goes in tomorrow's.
    await h.cron({ now: '2026-12-01T08:01:00Z' });
    const inbox = await h.inbox();
    const received = inbox.flatMap((m) => itemsIn(m.text!).map((t) => t.split(' ').pop()));
    expect(received.sort()).toEqual(['race-0', 'race-1', 'race-2', 'race-3']);
    const digestRows = (await h.db.collection('emails').where('kind', '==', 'digest').get()).docs.map((d) => d.id.slice(-10));
    expect(digestRows.filter((day) => day === '2026-11-30')).toHaveLength(1);
  });

  it('a missed 08:00 run is caught up by the next run', async () => {
    h.serveFeed(postings('miss', 4, 1, '2026-11-30T06:00:00Z'));
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    // The scheduler dropped every run between 06:00 and 13:10.
    expect((await h.cron({ now: '2026-11-30T13:10:00Z' })).body.digests).toBe(1);
    expect(await h.inbox()).toHaveLength(1);
    expect(
      (
        await h.db
          .collection('emails')
          .doc(`digest_${(await h.db.collection('users').get()).docs[0].id}_2026-11-30`)
          .get()
      ).get('status'),
    ).toBe('sent');
  });

  it('at-least-once: a crash after the send and before marking re-sends under the same key, so the provider drops the copy', async () => {
    h.serveFeed(postings('crash', 3, 1, '2026-11-30T07:00:00Z'));
    await h.cron({ now: '2026-11-30T07:00:00Z' });
    const crashOnce: Failpoint = async (name, ctx) => {
      if (name === 'before-record' && ctx?.emailKey?.startsWith('digest_')) throw new InjectedCrash(name);
    };
    expect((await h.cron({ now: '2026-11-30T08:00:00Z' }, { failpoint: crashOnce })).status).toBe(500);
    expect(await h.inbox()).toHaveLength(1);
    const row = (await h.db.collection('emails').where('kind', '==', 'digest').get()).docs[0];
    expect(row.get('status')).toBe('sending');

    // Within the lease nobody touches it; after the lease the next run retries with the same key.
    expect((await h.cron({ now: '2026-11-30T08:01:00Z' })).body.digests).toBe(0);
    expect((await h.cron({ now: '2026-11-30T08:15:00Z' })).body.digests).toBe(1);
    const inbox = await h.inbox();
    expect(inbox).toHaveLength(1);
    expect((await row.ref.get()).get('status')).toBe('sent');
    expect((await h.deliveryOutcomes()).every((d) => d.status === 'sent')).toBe(true);
  });

  it("a digest's items are marked sent with it: status sent, the digest's key, its sentAt", async () => {
    h.serveFeed(postings('mark', 3, 1, '2026-11-30T06:00:00Z'));
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    expect((await deliveriesOf(h.db, await uidOf(DANA))).map((d) => d.status)).toEqual(['queued', 'queued', 'queued']);
    await h.cron({ now: '2026-11-30T08:05:00Z' });
    const uid = await uidOf(DANA);
    for (const d of await deliveriesOf(h.db, uid)) {
      expect(d).toMatchObject({ status: 'sent', emailKey: `digest_${uid}_2026-11-30`, reason: null });
      expect(d.sentAt).toBeInstanceOf(Date);
    }
  });

  it('an item a digest row lists is never offered to a later digest, even while that row waits unsent into the next day', async () => {
    h.serveFeed(postings('first', 2, 0, '2026-11-30T06:00:00Z'));
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    // Day one's digest is claimed, then its send dies before the provider is reached.
    const crash: Failpoint = async (name, ctx) => {
      if (name === 'before-send' && ctx?.emailKey?.startsWith('digest_')) throw new InjectedCrash(name);
    };
    expect((await h.cron({ now: '2026-11-30T08:05:00Z' }, { failpoint: crash })).status).toBe(500);
    expect(await h.inbox()).toHaveLength(0);

    h.serveFeed([...postings('first', 2, 0, '2026-11-30T06:00:00Z'), ...postings('second', 2, 0, '2026-12-01T06:00:00Z')]);
    await h.cron({ now: '2026-12-01T06:00:00Z' });
    await h.cron({ now: '2026-12-01T08:05:00Z' });

    const inbox = await h.inbox();
    const received = inbox.flatMap((m) => itemsIn(m.text!).map((t) => t.split(' ').pop()));
    expect(received.sort()).toEqual(['first-0', 'first-1', 'second-0', 'second-1']);
    expect(inbox).toHaveLength(2);
    expect((await deliveriesOf(h.db, await uidOf(DANA))).every((d) => d.status === 'sent')).toBe(true);
  });

  it.each([
    ['later that day', '2026-11-30T08:20:00Z'],
    ['the next day', '2026-12-01T08:05:00Z'],
  ])(
    'a crash after the digest is recorded sent and before its items are marked: the next flush (%s) marks them, and they never go out again',
    async (_, next) => {
      h.serveFeed(postings('lost', 2, 0, '2026-11-30T06:00:00Z'));
      await h.cron({ now: '2026-11-30T06:00:00Z' });
      const crash: Failpoint = async (name) => {
        if (name === 'before-digest-marks') throw new InjectedCrash(name);
      };
      expect((await h.cron({ now: '2026-11-30T08:05:00Z' }, { failpoint: crash })).status).toBe(500);
      expect(await h.inbox()).toHaveLength(1);
      const uid = await uidOf(DANA);
      expect((await deliveriesOf(h.db, uid)).map((d) => d.status)).toEqual(['queued', 'queued']);

      await h.cron({ now: next });

      expect(await h.inbox()).toHaveLength(1);
      expect((await deliveriesOf(h.db, uid)).map((d) => [d.status, d.emailKey])).toEqual([
        ['sent', `digest_${uid}_2026-11-30`],
        ['sent', `digest_${uid}_2026-11-30`],
      ]);
    },
  );

  it('opt-outs win: a subscriber paused before 08:00 gets no digest and the queued items are closed as skipped', async () => {
    h.serveFeed(postings('paused', 2, 0, '2026-11-30T06:00:00Z'));
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    const user = (await h.db.collection('users').get()).docs[0];
    await user.ref.update({ status: 'paused' });
    await h.cron({ now: '2026-11-30T08:30:00Z' });
    expect(await h.inbox()).toHaveLength(0);
    expect((await h.deliveryOutcomes()).map((d) => [d.status, d.reason])).toEqual([
      ['skipped', 'subscriber_paused'],
      ['skipped', 'subscriber_paused'],
    ]);
  });
});

describe('daily digest after a switch to instant', () => {
  it('items queued before the switch are closed as skipped, never sent in a digest', async () => {
    h.serveFeed(postings('switch', 2, 0, '2026-11-30T06:00:00Z'));
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    const user = (await h.db.collection('users').get()).docs[0];
    await user.ref.update({ mode: 'instant' });
    await h.cron({ now: '2026-11-30T08:30:00Z' });
    expect(await h.inbox()).toHaveLength(0);
    expect((await h.deliveryOutcomes()).map((d) => [d.status, d.reason])).toEqual([
      ['skipped', 'mode_changed'],
      ['skipped', 'mode_changed'],
    ]);
  });
});

describe('daily digest under the time budget', () => {
  it('a flush stopped by the budget reports partial, loses nothing, and the next run sends the digest', async () => {
    h.serveFeed(postings('budget', 3, 1, '2026-11-30T06:00:00Z'));
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    const stopped = await runCycle(
      { ...h.deps, wallClock: leapingClock(h.config.RUN_BUDGET_MS), failpoint: noFailpoints },
      { now: new Date('2026-11-30T08:05:00Z'), dryRun: false, trigger: 'test' },
    );
    expect(stopped).toMatchObject({ kind: 'ran', partial: true, digests: 0 });
    expect(await h.inbox()).toHaveLength(0);
    expect((await h.deliveryOutcomes()).map((d) => d.status)).toEqual(['queued', 'queued', 'queued']);

    expect((await h.cron({ now: '2026-11-30T08:20:00Z' })).body).toMatchObject({ digests: 1, partial: false });
    expect(itemsIn((await h.inbox())[0].text!)).toHaveLength(3);
  });
});

describe('daily digest flush over many due pages', () => {
  it('walks the due pages a list at a time with a cursor: every subscriber gets one digest, none twice', async () => {
    for (const name of ['ann', 'bea', 'cid', 'dov'])
      await h.subscribe({ email: `${name}@example.com`, keywords: ['python'], mode: 'daily' });
    h.serveFeed(postings('many', 2, 0, '2026-11-30T06:00:00Z'));
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    const stats = await flushDueDigests(
      {
        db: h.db,
        composeDigest: async ({ subscriber }) => ({
          from: 'a@scout.test',
          to: subscriber.email,
          subject: 'd',
          html: '<p>d</p>',
          text: 'd',
          headers: {},
        }),
        outOfTime: () => false,
      },
      { now: new Date('2026-11-30T08:05:00Z'), runId: 'run-flush', digestHourUtc: 8, maxItems: 20, retentionDays: 30, duePageSize: 2 },
    );
    expect(stats).toMatchObject({ due: 5, claimed: 5, truncated: false });
    const rows = (await h.db.collection('emails').where('kind', '==', 'digest').get()).docs.map((d) => d.get('uid'));
    expect(new Set(rows).size).toBe(5);
    expect(rows).toHaveLength(5);
    // Pages of two items split most subscribers' items across two pages: each digest still lists both.
    const listed = (await h.db.collection('emails').where('kind', '==', 'digest').get()).docs.map((d) => d.get('deliveryIds').length);
    expect(listed).toEqual([2, 2, 2, 2, 2]);
  });

  it('flushes racing, each writing its subscriber batches in compose batches of one step of renders: every subscriber gets one digest, none twice', async () => {
    const names = Array.from({ length: 35 }, (_, i) => `sub${i}@example.com`);
    for (const email of names) await h.subscribe({ email, keywords: ['python'], mode: 'daily' });
    h.serveFeed(postings('waves', 2, 0, '2026-11-30T06:00:00Z'));
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    const flush = (runId: string) =>
      flushDueDigests(
        {
          db: h.db,
          composeDigest: async ({ subscriber, items }) => ({
            from: 'a@scout.test',
            to: subscriber.email,
            subject: `${items.length}`,
            html: '<p>d</p>',
            text: 'd',
            headers: {},
          }),
          outOfTime: () => false,
        },
        // A one-byte compose budget: 36 digests are three compose batches (steps of 16) in each flush.
        { now: new Date('2026-11-30T08:05:00Z'), runId, digestHourUtc: 8, maxItems: 20, retentionDays: 30, composeBatchBytes: 1 },
      );

    const results = await Promise.all(['a', 'b', 'c', 'd'].map((r) => flush(`run-${r}`)));

    expect(results.reduce((n, r) => n + r.claimed, 0)).toBe(36);
    expect(results.every((r) => r.gaveUp === 0)).toBe(true);
    const rows = (await h.db.collection('emails').where('kind', '==', 'digest').get()).docs;
    expect(rows).toHaveLength(36);
    expect(new Set(rows.map((d) => d.get('uid'))).size).toBe(36);
    expect(rows.every((d) => d.get('deliveryIds').length === 2)).toBe(true);
  });
});
