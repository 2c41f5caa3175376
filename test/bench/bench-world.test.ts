import { describe, expect, it } from 'vitest';
import { nextDigestSlot } from '../../lib/subscribers/digest-schedule';
import { digestScheduleOf } from '../../lib/subscribers/subscriber';
import { benchSchedule, dueSubscribersPerRun, SPREAD_ZONES, type BenchShape } from '../../scripts/bench/bench-world';

const DAY = new Date('2026-11-30T06:00:00Z');
const shape: BenchShape = { subscribers: 4_800, postings: 500, matchRate: 0.01, digestWorld: 'spread' };

/** Subscriber i's next digest slot after the start of the bench's UTC day. */
function slotOf(i: number, world: BenchShape['digestWorld']) {
  const schedule = digestScheduleOf(
    { mode: 'daily', weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], weeklyDay: 'mon', ...benchSchedule(i, world, DAY) },
    8,
  )!;
  return nextDigestSlot(schedule, new Date('2026-11-29T23:59:59Z'));
}

describe('the bench world with digests spread over the day', () => {
  it('puts the daily subscribers’ slots in every hour of the UTC day, about as many in each, in every zone', () => {
    const perHour = new Map<number, number>();
    const zones = new Set<string>();
    for (let i = 1; i < shape.subscribers; i += 2) {
      const hour = slotOf(i, 'spread').getUTCHours();
      perHour.set(hour, (perHour.get(hour) ?? 0) + 1);
      zones.add(benchSchedule(i, 'spread', DAY).timezone);
    }
    expect([...perHour.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, h) => h));
    // 100 a UTC hour; the half-hour zones put theirs half an hour early, a few into the hour before.
    expect(Math.max(...perHour.values()) - Math.min(...perHour.values())).toBeLessThanOrEqual(24);
    expect([...zones].sort()).toEqual([...SPREAD_ZONES].sort());
  });

  it('gives instant subscribers, and every subscriber of the utc08 world, the default schedule', () => {
    expect(benchSchedule(0, 'spread', DAY)).toEqual({ timezone: 'UTC', digestHour: null });
    expect(benchSchedule(7, 'utc08', DAY)).toEqual({ timezone: 'UTC', digestHour: null });
    expect(slotOf(7, 'utc08').toISOString()).toBe('2026-11-30T08:00:00.000Z');
  });

  it('due per run: every daily subscriber once, none in the claiming run (their passed hour was served), an eighth in each three-hour run', () => {
    const runs = ['09', '12', '15', '18', '21'].map((h) => new Date(`2026-11-30T${h}:00:00Z`));
    runs.push(...['00', '03', '06'].map((h) => new Date(`2026-12-01T${h}:00:00Z`)));
    const due = dueSubscribersPerRun(shape, { claimedAt: DAY, runs, digestHourUtc: 8 });
    expect(due[0]).toBe(0);
    expect(due.reduce((a, b) => a + b, 0)).toBe(shape.subscribers / 2);
    // 300 each, give or take the half-hour zones' slots that fall on the other side of a run.
    for (const n of due.slice(1)) expect(Math.abs(n - shape.subscribers / 16)).toBeLessThanOrEqual(12);
  });
});
