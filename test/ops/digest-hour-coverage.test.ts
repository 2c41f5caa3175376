import { describe, expect, it } from 'vitest';
import { digestHourCoverageText, digestHourSlots, unservedHours, type DigestHourCoverage } from '../../lib/ops/digest-hour-coverage';

const iso = (d: Date) => d.toISOString();
const NOW = new Date('2026-11-30T09:00:00Z');

describe('where each local digest hour fell in the last day', () => {
  it.each([
    ['the default hour in UTC', { timezone: 'UTC', digestHour: null }, ['2026-11-30T08:00:00.000Z']],
    ['Berlin 18:00 (CET)', { timezone: 'Europe/Berlin', digestHour: 18 }, ['2026-11-29T17:00:00.000Z']],
    ['Kolkata 07:00, half an hour off the UTC hour', { timezone: 'Asia/Kolkata', digestHour: 7 }, ['2026-11-30T01:30:00.000Z']],
    ['Lord Howe 08:00 (summer, +11)', { timezone: 'Australia/Lord_Howe', digestHour: 8 }, ['2026-11-29T21:00:00.000Z']],
    [
      'New York 03:00 (EST, 08:00Z): its hour to be served has just passed',
      { timezone: 'America/New_York', digestHour: 3 },
      ['2026-11-30T08:00:00.000Z'],
    ],
    // Today's 09:00Z is now: its run may still come, so only yesterday's, 24 h ago, is judged.
    [
      'New York 04:00 (EST, 09:00Z): today’s is not judged yet',
      { timezone: 'America/New_York', digestHour: 4 },
      ['2026-11-29T09:00:00.000Z'],
    ],
    [
      'Kolkata 14:00 (08:30Z), inside the last hour: yesterday’s was before the day looked at',
      { timezone: 'Asia/Kolkata', digestHour: 14 },
      [],
    ],
  ])('%s', (_, hour, expected) => {
    expect(digestHourSlots([hour], { now: NOW, digestHourUtc: 8 }).map((s) => iso(s.slot))).toEqual(expected);
  });

  it('a zone the runtime does not know has no slots (and does not stop the page)', () => {
    expect(digestHourSlots([{ timezone: 'Mars/Olympus_Mons', digestHour: 9 }], { now: NOW, digestHourUtc: 8 })).toEqual([]);
  });

  it('the default hour follows DIGEST_HOUR_UTC, in the subscriber’s zone', () => {
    const [slot] = digestHourSlots([{ timezone: 'Europe/Berlin', digestHour: null }], { now: NOW, digestHourUtc: 6 });
    expect({ at: iso(slot.slot), localHour: slot.localHour }).toEqual({ at: '2026-11-30T05:00:00.000Z', localHour: 6 });
  });

  it('an hour the clocks skip falls on the next moment the clock reads it (New York 02:00 on 14 March 2027 → 03:00 EDT)', () => {
    const [slot] = digestHourSlots([{ timezone: 'America/New_York', digestHour: 2 }], {
      now: new Date('2027-03-14T12:00:00Z'),
      digestHourUtc: 8,
    });
    expect({ at: iso(slot.slot), localHour: slot.localHour }).toEqual({ at: '2027-03-14T07:00:00.000Z', localHour: 2 });
  });
});

describe('unserved hours', () => {
  const slots = digestHourSlots(
    [
      { timezone: 'UTC', digestHour: null },
      { timezone: 'Europe/Berlin', digestHour: 18 },
      { timezone: 'Asia/Kolkata', digestHour: 7 },
      { timezone: 'Europe/Berlin', digestHour: 9 },
    ],
    { now: NOW, digestHourUtc: 8 },
  );

  it('a slot is served by a run at it or up to an hour after; the rest are listed, the latest first', () => {
    // Berlin 09:00 is 08:00Z, the same instant as the default hour: one run serves both.
    const served = new Set([new Date('2026-11-30T08:00:00Z').getTime()]);
    expect(unservedHours(slots, served).map((u) => [u.timezone, u.hour, u.followsDefault, iso(u.slot)])).toEqual([
      ['Asia/Kolkata', 7, false, '2026-11-30T01:30:00.000Z'],
      ['Europe/Berlin', 18, false, '2026-11-29T17:00:00.000Z'],
    ]);
  });

  it('the default hour, unserved, says so', () => {
    const [u] = unservedHours(slots.slice(0, 1), new Set());
    expect(u).toMatchObject({ timezone: 'UTC', hour: 8, followsDefault: true });
  });
});

describe('in words', () => {
  const base: DigestHourCoverage = { hoursChecked: 3, truncated: false, unserved: [], unservedTotal: 0, digestHourUtc: 8 };
  it('all served', () => {
    expect(digestHourCoverageText(base)).toBe(
      "digest hours: every subscriber's local digest hour in the last day had a run within the hour (3 zone/hour pairs checked)",
    );
  });
  it('none to check', () => {
    expect(digestHourCoverageText({ ...base, hoursChecked: 0 })).toBe('digest hours: no active digest subscribers');
  });
  it('some unserved, more than listed, and a search cut short: names them, the scheduler they need, and what was not checked', () => {
    const text = digestHourCoverageText({
      ...base,
      truncated: true,
      unservedTotal: 3,
      unserved: [
        { timezone: 'UTC', hour: 8, followsDefault: true, slot: new Date('2026-11-30T08:00:00Z'), subscribers: 1 },
        { timezone: 'Europe/Berlin', hour: 18, followsDefault: false, slot: new Date('2026-11-29T17:00:00Z'), subscribers: 12 },
      ],
    });
    expect(text).toBe(
      'digest hours: 3 local digest hours in the last day had no run within the hour, so those digests go out late: ' +
        'UTC 08:00 (the default hour) (08:00 UTC, 1 subscriber), Europe/Berlin 18:00 (17:00 UTC, 12 subscribers), and 1 more. ' +
        "Per-hour schedules need a scheduler that calls at least hourly (Vercel Pro, GitHub Actions, cron-job.org); the Vercel Hobby plan's once-a-day cron serves only the default hour (DIGEST_HOUR_UTC=8). " +
        '(3 zone/hour pairs checked, some not: over 24 zones at one hour)',
    );
  });
});
