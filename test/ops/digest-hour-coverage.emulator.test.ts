import { afterEach, describe, expect, it } from 'vitest';
import { readDigestHourCoverage, ZONES_PER_HOUR } from '../../lib/ops/digest-hour-coverage';
import { defaultScheduleFields, subscriberId, subscribersCollection, type Subscriber } from '../../lib/subscribers/subscriber';
import { instrumentFirestore } from '../../scripts/bench/firestore-counter';
import { createHarness, type Harness } from '../support/harness';

/**
 * The ops page's digest-hours check against the store: which local hours the last day's runs did
 * not serve, and what it costs — a bound in (zone, hour) pairs, never in subscribers.
 */
const NOW = new Date('2026-11-30T12:00:00Z');
let h: Harness;
afterEach(async () => h?.close());

type Schedule = Partial<Pick<Subscriber, 'mode' | 'status' | 'timezone' | 'digestHour'>>;

/** `count` subscribers with one schedule, written in batches (the test's starting state, not a signup). */
async function seed(prefix: string, count: number, schedule: Schedule) {
  for (let start = 0; start < count; start += 400) {
    const batch = h.db.batch();
    for (let i = start; i < Math.min(count, start + 400); i++) {
      const email = `${prefix}${i}@example.com`;
      const subscriber: Subscriber = {
        id: subscriberId(email),
        email,
        keywords: ['react'],
        excludes: [],
        minPay: { fixed: null, hourly: null, yearly: null },
        mode: 'daily',
        about: '',
        profileVersion: 1,
        fitThreshold: 60,
        status: 'active',
        ...defaultScheduleFields(),
        ...schedule,
        createdAt: NOW,
        confirmedAt: NOW,
        updatedAt: NOW,
      };
      batch.set(subscribersCollection(h.db).doc(subscriber.id), subscriber);
    }
    await batch.commit();
  }
}

const run = (id: string, startedAt: string) =>
  h.db
    .collection('runs')
    .doc(id)
    .set({ trigger: 'cron', status: 'done', startedAt: new Date(startedAt), stats: {}, errors: [] });

const hoursOf = (c: Awaited<ReturnType<typeof readDigestHourCoverage>>) =>
  c.unserved.map((u) => `${u.timezone} ${u.hour} ${u.slot.toISOString()} ×${u.subscribers}`);

describe('digest hours against the last day’s runs', () => {
  it('a once-a-day scheduler (Vercel Hobby at 08:05 UTC) serves the default hour only: the others are named, with their subscribers', async () => {
    h = await createHarness();
    await seed('utc', 3, {});
    await seed('ber', 2, { timezone: 'Europe/Berlin', digestHour: 18 });
    await seed('kol', 1, { timezone: 'Asia/Kolkata', digestHour: 7, mode: 'weekly' });
    // Not digest subscribers, or not active: never in the check.
    await seed('tok', 4, { timezone: 'Asia/Tokyo', digestHour: 5, mode: 'instant' });
    await seed('la', 2, { timezone: 'America/Los_Angeles', digestHour: 9, status: 'paused' });
    await seed('feed', 1, { timezone: 'America/Sao_Paulo', digestHour: 9, mode: 'feed' });
    await run('run-yesterday', '2026-11-29T08:05:00Z');
    await run('run-today', '2026-11-30T08:05:00Z');

    const coverage = await readDigestHourCoverage(h.db, { now: NOW, digestHourUtc: 8 });
    expect(coverage).toMatchObject({ hoursChecked: 3, truncated: false, unservedTotal: 2, digestHourUtc: 8 });
    expect(hoursOf(coverage)).toEqual(['Asia/Kolkata 7 2026-11-30T01:30:00.000Z ×1', 'Europe/Berlin 18 2026-11-29T17:00:00.000Z ×2']);

    // An hourly scheduler serves every one of them, the half-hour zone too (its run within the hour).
    for (let t = Date.parse('2026-11-29T12:00:00Z'); t <= NOW.getTime(); t += 3_600_000)
      await run(`hourly-${t}`, new Date(t).toISOString());
    expect(await readDigestHourCoverage(h.db, { now: NOW, digestHourUtc: 8 })).toMatchObject({ hoursChecked: 3, unservedTotal: 0 });
  });

  it('a run more than an hour after the slot does not serve it; DIGEST_HOUR_UTC moves the default hour', async () => {
    h = await createHarness();
    await seed('utc', 1, {});
    await run('late', '2026-11-30T09:01:00Z');
    expect(hoursOf(await readDigestHourCoverage(h.db, { now: NOW, digestHourUtc: 8 }))).toEqual(['UTC 8 2026-11-30T08:00:00.000Z ×1']);
    expect((await readDigestHourCoverage(h.db, { now: NOW, digestHourUtc: 9 })).unservedTotal).toBe(0);
  });

  it('reads one document per (zone, hour) pair plus one per hour value, one per slot instant, one count per unserved pair: the same for 30 subscribers as for 600', async () => {
    h = await createHarness();
    const costOf = async () => {
      const counter = instrumentFirestore();
      try {
        const coverage = await readDigestHourCoverage(h.db, { now: NOW, digestHourUtc: 8 });
        return { reads: counter.snapshot().reads, coverage };
      } finally {
        counter.restore();
      }
    };
    const world = async (n: number) => {
      await seed(`a${n}-`, n, {});
      await seed(`b${n}-`, n, { timezone: 'Europe/Berlin', digestHour: 18 });
      await seed(`c${n}-`, n, { timezone: 'Asia/Kolkata', digestHour: 7 });
      await seed(`d${n}-`, n, { mode: 'instant' });
    };
    await run('hobby', '2026-11-30T08:05:00Z');
    await world(10);
    const small = await costOf();
    await world(200);
    const large = await costOf();

    // 25 hour values (null, 0–23): each chain ends on an empty read; 3 pairs found; 3 slot instants; 2 counts (under 1,000 each).
    expect(small.reads).toBe(25 + 3 + 3 + 2);
    expect(large.reads).toBe(small.reads);
    expect(large.coverage.unserved.map((u) => u.subscribers)).toEqual([210, 210]);
  });

  it(`at most ${ZONES_PER_HOUR} zones are read for one hour: past them the check says it was cut short, and its reads stop there`, async () => {
    h = await createHarness();
    const zones = ['Africa/Cairo', 'America/Chicago', 'Asia/Dubai', 'Europe/Paris', 'Pacific/Auckland'];
    for (const [i, timezone] of zones.entries()) await seed(`z${i}-`, 2, { timezone, digestHour: 10 });
    const counter = instrumentFirestore();
    try {
      const coverage = await readDigestHourCoverage(h.db, { now: NOW, digestHourUtc: 8, zonesPerHour: 3 });
      expect(coverage).toMatchObject({ hoursChecked: 3, truncated: true });
      // 24 empty hour values, 3 zones at 10:00 and one read that finds there are more; 3 slots; 3 counts (no runs at all).
      expect(counter.snapshot().reads).toBe(24 + 3 + 1 + 3 + 3);
    } finally {
      counter.restore();
    }
  });
});
