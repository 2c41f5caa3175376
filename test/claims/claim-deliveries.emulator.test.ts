import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredPosting } from '../../lib/feeds/postings-collection';
import { claimDeliveries, type ClaimCandidate } from '../../lib/claims/claim-deliveries';
import { deliveriesCollection } from '../../lib/ledger/delivery';
import type { Subscriber } from '../../lib/subscribers/subscriber';
import { createHarness, type Harness } from '../support/harness';
import { advanceClaimCursor, donePairs, passKey, unreachedPairs, type ClaimCursor } from '../../lib/claims/claim-cursor';
import { instrumentFirestore } from '../../scripts/bench/firestore-counter';
import { outboxCollection } from '../../lib/outbox/outbox-row';

const NOW = new Date('2026-11-30T06:00:00Z');
let h: Harness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const subscriber = (i: number, mode: Subscriber['mode']): Subscriber =>
  ({
    id: `uid-${mode}-${i}`,
    email: `dev${i}@example.com`,
    keywords: ['react'],
    excludes: [],
    minPay: { fixed: null, hourly: null, yearly: null },
    mode,
    status: 'active',
  }) as unknown as Subscriber;

const posting = (n: number): StoredPosting => ({
  id: `rss_${String(n).padStart(4, '0')}`,
  source: 'rss',
  guid: null,
  title: `React role ${n}`,
  url: `https://jobs.example/${n}`,
  description: 'React',
  budget: null,
  skills: [],
  publishedAt: NOW,
  matchState: 'pending',
  runId: 'run-feed',
  fetchedAt: NOW,
  expireAt: new Date('2026-12-30T00:00:00Z'),
});

const candidates = (subscribers: Subscriber[], postings: StoredPosting[]): ClaimCandidate[] =>
  subscribers.flatMap((s) => postings.map((p) => ({ subscriber: s, posting: p, score: 70, reasons: ['keyword: react'] })));

const claim = (runId: string, list: ClaimCandidate[], composeBatchBytes?: number) =>
  claimDeliveries(
    {
      db: h.db,
      composeAlert: async (s, items) => ({
        from: 'a@scout.test',
        to: s.email,
        subject: `${items.length}`,
        html: '<p>x</p>',
        text: 'x',
        headers: {},
      }),
      outOfTime: () => false,
    },
    { candidates: list, runId, now: NOW, retentionDays: 30, digestHourUtc: 8, composeBatchBytes },
  );

describe('claiming deliveries onto pages', () => {
  it('N runs racing for subscribers who already have deliveries: each new pair is claimed by exactly one run (create() on the pair)', async () => {
    const subscribers = [
      ...Array.from({ length: 10 }, (_, i) => subscriber(i, 'daily')),
      ...Array.from({ length: 10 }, (_, i) => subscriber(i, 'instant')),
    ];
    // An earlier cycle the same day left every subscriber one delivery.
    await claim('run-earlier', candidates(subscribers, [posting(0)]));
    const fresh = [posting(1), posting(2), posting(3)];

    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => claim(`run-${i}`, candidates(subscribers, fresh))));

    expect(results.reduce((n, r) => n + r.queued, 0)).toBe(10 * fresh.length);
    expect(results.reduce((n, r) => n + r.instantDeliveries, 0)).toBe(10 * fresh.length);
    const docs = (await deliveriesCollection(h.db).get()).docs;
    expect(docs).toHaveLength(subscribers.length * 4);
    for (const s of subscribers)
      expect(
        docs
          .filter((d) => d.data().uid === s.id)
          .map((d) => d.id)
          .sort(),
      ).toEqual(['rss_0000', 'rss_0001', 'rss_0002', 'rss_0003'].map((j) => `${s.id}_${j}`));
    // One alert per instant subscriber for the new postings (plus the earlier one), never two.
    const alerts = (await h.db.collection('emails').get()).docs.map((d) => d.get('uid') as string);
    expect(alerts).toHaveLength(2 * 10);
    expect(new Set(alerts).size).toBe(10);
  });

  it('N runs racing, each writing its subscriber batch in compose batches of one step of renders: each pair claimed once, one alert per subscriber', async () => {
    // 40 instant subscribers are three steps of renders; a one-byte compose budget writes each step as its own compose batch.
    const subscribers = [
      ...Array.from({ length: 40 }, (_, i) => subscriber(i, 'instant')),
      ...Array.from({ length: 8 }, (_, i) => subscriber(i, 'daily')),
    ];
    const fresh = [posting(1), posting(2)];

    const results = await Promise.all(Array.from({ length: 4 }, (_, i) => claim(`run-${i}`, candidates(subscribers, fresh), 1)));

    expect(results.reduce((n, r) => n + r.instantDeliveries, 0)).toBe(40 * 2);
    expect(results.reduce((n, r) => n + r.alertEmails, 0)).toBe(40);
    expect(results.reduce((n, r) => n + r.queued, 0)).toBe(8 * 2);
    expect(results.every((r) => r.gaveUp === 0)).toBe(true);
    expect((await deliveriesCollection(h.db).get()).size).toBe(48 * 2);
    const alerts = (await h.db.collection('emails').get()).docs.map((d) => d.get('uid') as string);
    expect(alerts.sort()).toEqual(
      subscribers
        .filter((s) => s.mode === 'instant')
        .map((s) => s.id)
        .sort(),
    );
  });

  it('a run that stored the postings skips the existence read, yet its create() still never claims a pair twice', async () => {
    const subscribers = [subscriber(1, 'daily'), subscriber(2, 'instant')];
    const stored = [posting(1), posting(2)].map((p) => ({ ...p, runId: 'run-storer' }));
    // Another run claimed these pairs first (a run racing the storer, or postings stored again after their TTL).
    await claim('run-other', candidates(subscribers, stored));

    const again = await claim('run-storer', candidates(subscribers, stored));

    expect(again).toMatchObject({ queued: 0, instantDeliveries: 0, alertEmails: 0, gaveUp: 0 });
    expect((await deliveriesCollection(h.db).get()).docs.map((d) => d.data().runId)).toEqual(Array(4).fill('run-other'));
    expect((await h.db.collection('emails').get()).size).toBe(1);
  });

  it('N runs racing, one of which stored the postings and reads nothing first: each pair claimed once, one alert each', async () => {
    const subscribers = Array.from({ length: 8 }, (_, i) => subscriber(i, i % 2 ? 'instant' : 'daily'));
    const stored = [posting(1), posting(2), posting(3)].map((p) => ({ ...p, runId: 'run-0' }));

    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => claim(`run-${i}`, candidates(subscribers, stored))));

    expect(results.reduce((n, r) => n + r.queued + r.instantDeliveries, 0)).toBe(8 * 3);
    expect((await deliveriesCollection(h.db).get()).size).toBe(8 * 3);
    const alerts = (await h.db.collection('emails').get()).docs.map((d) => d.get('uid') as string);
    expect(alerts.sort()).toEqual(subscribers.filter((s) => s.mode === 'instant').map((s) => s.id));
  });

  it('one subscriber matching 600 postings in one run: 600 documents, in batches Firestore accepts', async () => {
    const many = Array.from({ length: 600 }, (_, i) => posting(i));
    const daily = await claim('run-a', candidates([subscriber(1, 'daily')], many));
    const instant = await claim('run-b', candidates([subscriber(2, 'instant')], many));

    expect(daily).toMatchObject({ queued: 600, gaveUp: 0 });
    expect(instant).toMatchObject({ instantDeliveries: 25, alertEmails: 1, skipped: 575, gaveUp: 0 });
    const docs = (await deliveriesCollection(h.db).get()).docs.map((d) => d.data());
    expect(docs).toHaveLength(1200);
    expect(docs.filter((d) => d.status === 'skipped').every((d) => d.reason === 'alert_cap')).toBe(true);
  });

  it('a daily match is one deliveries/{uid}_{jobId} document, queued for the next digest with its verdict', async () => {
    const ada = subscriber(1, 'daily');
    await claim('run-a', candidates([ada], [posting(1)]));
    const docs = (await deliveriesCollection(h.db).get()).docs;
    expect(docs.map((d) => d.id)).toEqual([`${ada.id}_rss_0001`]);
    expect(docs[0].data()).toMatchObject({
      uid: ada.id,
      jobId: 'rss_0001',
      mode: 'daily',
      status: 'queued',
      digestDate: '2026-11-30',
      score: 70,
      reasons: ['keyword: react'],
      emailKey: null,
      runId: 'run-a',
    });
    expect(docs[0].data().expireAt.getTime()).toBeGreaterThan(NOW.getTime());
  });

  it('a run stopped by its budget resumes after the last subscriber it reached, so those not reached go first next time', async () => {
    const everyone = [1, 2, 3, 4, 5, 6].map((i) => subscriber(i, 'instant'));
    const list = candidates(everyone, [posting(1)]);
    // One subscriber batch of two subscribers fits in each run's budget.
    const oneSliceRun = (runId: string, resumeAfter: string | null) => {
      let checks = 0;
      return claimDeliveries(
        {
          db: h.db,
          composeAlert: async (s) => ({ from: 'a@scout.test', to: s.email, subject: '1', html: '<p>x</p>', text: 'x', headers: {} }),
          outOfTime: () => checks++ > 0,
        },
        { candidates: list, runId, now: NOW, retentionDays: 30, digestHourUtc: 8, resumeAfter, subscribersPerBatch: 2 },
      );
    };
    const reached = async () => [...new Set((await deliveriesCollection(h.db).get()).docs.map((d) => d.data().uid))].sort();

    const first = await oneSliceRun('run-1', null);
    expect(first).toMatchObject({ instantDeliveries: 2, truncated: true, resumeAfter: 'uid-instant-2' });
    const second = await oneSliceRun('run-2', first.resumeAfter);
    expect(second).toMatchObject({ instantDeliveries: 2, truncated: true, resumeAfter: 'uid-instant-4' });
    expect(await reached()).toEqual(['uid-instant-1', 'uid-instant-2', 'uid-instant-3', 'uid-instant-4']);
    const third = await oneSliceRun('run-3', second.resumeAfter);
    expect(third).toMatchObject({ instantDeliveries: 2, truncated: true, resumeAfter: 'uid-instant-6' });
    // Everybody reached: the next run wraps around, finds every pair claimed, and finishes.
    const done = await claim('run-4', list);
    expect(done).toMatchObject({ instantDeliveries: 0, truncated: false, resumeAfter: null });
    expect(await reached()).toHaveLength(6);
  });

  /** A run whose budget holds `batches` subscriber batches of two subscribers, resuming from `cursor`, and the cursor it leaves. */
  const runCutShort = async (runId: string, list: ClaimCandidate[], cursor: ClaimCursor | null, batches: number) => {
    let started = 0;
    const claims = await claimDeliveries(
      {
        db: h.db,
        composeAlert: async (s) => ({ from: 'a@scout.test', to: s.email, subject: '1', html: '<p>x</p>', text: 'x', headers: {} }),
        outOfTime: () => started++ >= batches,
      },
      {
        candidates: list,
        runId,
        now: NOW,
        retentionDays: 30,
        digestHourUtc: 8,
        resumeAfter: cursor?.resumeAfter ?? null,
        done: donePairs(cursor),
        unreached: unreachedPairs(cursor),
        subscribersPerBatch: 2,
      },
    );
    const postings = [...new Set(list.map((c) => passKey(c.posting)))];
    return { claims, ...advanceClaimCursor(cursor, { ...claims, postings }) };
  };

  it('a catch-up resumes, not repeats: it reads no delivery of the pairs the runs cut short before it claimed, nor of those no run reached', async () => {
    const everyone = [1, 2, 3, 4, 5, 6, 7, 8].map((i) => subscriber(i, 'instant'));
    const list = candidates(everyone, [posting(1), posting(2)]);
    const counter = instrumentFirestore();
    try {
      const deliveryReads: number[] = [];
      let cursor: ClaimCursor | null = null;
      for (const runId of ['run-1', 'run-2', 'run-3']) {
        counter.reset();
        const run = await runCutShort(runId, list, cursor, 1);
        expect(run.claims).toMatchObject({ instantDeliveries: 4, truncated: true });
        cursor = run.cursor;
        deliveryReads.push(counter.byCollection().deliveries?.reads ?? 0);
      }
      counter.reset();
      const last = await runCutShort('run-4', list, cursor, 1);
      deliveryReads.push(counter.byCollection().deliveries?.reads ?? 0);
      // The last two subscribers are all that is left: the run reaches them and is not cut short.
      expect(last.claims).toMatchObject({ instantDeliveries: 4, truncated: false });
      expect(last.cursor).toBeNull();
      // The first run reads its subscriber batch's 4 pairs (their postings were stored before it); the catch-ups
      // read none: without the cursor they read 4, 12 and 20, as they wrap around.
      expect(deliveryReads).toEqual([4, 0, 0, 0]);
    } finally {
      counter.restore();
    }
    const alerts = (await outboxCollection(h.db).get()).docs.map((d) => d.get('uid') as string).sort();
    expect(alerts).toEqual(everyone.map((s) => s.id));
  });

  it('overlapping runs cut short leave a cursor that names only pairs they claimed: the catch-up sends everyone exactly one alert', async () => {
    const everyone = [1, 2, 3, 4, 5, 6].map((i) => subscriber(i, 'instant'));
    const list = candidates(everyone, [posting(1), posting(2)]);
    const first = await runCutShort('run-1', list, null, 1);
    // Five runs start from the same cursor, each with time for a subscriber batch or two; they race for the same
    // subscribers, and whichever cursor is written last is the one the catch-up reads.
    const racing = await Promise.all([1, 2, 1, 2, 1].map((batches, i) => runCutShort(`run-race-${i}`, list, first.cursor, batches)));
    for (const raced of racing) {
      const catchUp = await runCutShort('run-catch-up', list, raced.cursor, 10);
      expect(catchUp.claims.truncated).toBe(false);
    }
    const rows = (await outboxCollection(h.db).get()).docs.map((d) => d.data());
    expect(rows.map((r) => r.uid).sort()).toEqual(everyone.map((s) => s.id));
    expect(rows.every((r) => r.deliveryIds.length === 2)).toBe(true);
    expect((await deliveriesCollection(h.db).get()).size).toBe(12);
  });

  it('a pair the cursor calls unreached that a run claimed after all (it crashed past the ring, no cursor left) is not claimed twice', async () => {
    const everyone = [1, 2, 3, 4, 5, 6].map((i) => subscriber(i, 'instant'));
    const list = candidates(everyone, [posting(1), posting(2)]);
    const first = await runCutShort('run-1', list, null, 1);
    // A run that reached everybody and died before it wrote its cursor.
    await claim('run-crashed', list);
    const catchUp = await runCutShort('run-catch-up', list, first.cursor, 10);
    expect(catchUp.claims).toMatchObject({ instantDeliveries: 0, alertEmails: 0, gaveUp: 0, truncated: false });
    const rows = (await outboxCollection(h.db).get()).docs.map((d) => d.get('uid') as string).sort();
    expect(rows).toEqual(everyone.map((s) => s.id));
  });
});
