import { describe, expect, it } from 'vitest';
import {
  digestPeriod,
  dueSlotFor,
  latestDigestSlot,
  nextDigestSlot,
  periodsFrom,
  WEEKDAYS,
  weekdaysSchema,
  timezoneSchema,
  type DigestSchedule,
} from '../../lib/subscribers/digest-schedule';

const daily = (timezone: string, hour: number, weekdays: DigestSchedule['weekdays'] = WEEKDAYS): DigestSchedule => ({
  cadence: 'daily',
  timezone,
  hour,
  weekdays,
  weeklyDay: 'mon',
});
const weekly = (timezone: string, hour: number, weeklyDay: DigestSchedule['weeklyDay']): DigestSchedule => ({
  cadence: 'weekly',
  timezone,
  hour,
  weekdays: WEEKDAYS,
  weeklyDay,
});
const at = (iso: string) => new Date(iso);
const iso = (date: Date) => date.toISOString();

describe('digest slots at fixed instants, across daylight-saving changes', () => {
  it('the default (08:00 UTC every day) is what every subscriber had before schedules', () => {
    const utc = daily('UTC', 8);
    expect(iso(nextDigestSlot(utc, at('2026-11-30T07:59:59Z')))).toBe('2026-11-30T08:00:00.000Z');
    expect(iso(nextDigestSlot(utc, at('2026-11-30T08:00:00Z')))).toBe('2026-12-01T08:00:00.000Z');
    expect(iso(latestDigestSlot(utc, at('2026-11-30T08:00:00Z')))).toBe('2026-11-30T08:00:00.000Z');
    expect(digestPeriod(utc, at('2026-11-30T08:00:00Z'))).toBe('2026-11-30');
  });

  describe('America/New_York', () => {
    const ny = (hour: number) => daily('America/New_York', hour);
    it('keeps its local hour on both sides of a change: 09:00 is 14:00Z in winter and 13:00Z in summer', () => {
      expect(iso(nextDigestSlot(ny(9), at('2026-03-07T12:00:00Z')))).toBe('2026-03-07T14:00:00.000Z');
      expect(iso(nextDigestSlot(ny(9), at('2026-03-08T12:00:00Z')))).toBe('2026-03-08T13:00:00.000Z');
    });
    it('an hour the clocks skip (02:00 on 8 March) sends at the next hour, 03:00 EDT', () => {
      expect(iso(nextDigestSlot(ny(2), at('2026-03-08T05:00:00Z')))).toBe('2026-03-08T07:00:00.000Z');
    });
    it('an hour the clocks repeat (01:00 on 1 November) sends at its first occurrence, and once: both are the same period', () => {
      const first = nextDigestSlot(ny(1), at('2026-11-01T04:00:00Z'));
      expect(iso(first)).toBe('2026-11-01T05:00:00.000Z'); // 01:00 EDT
      // The second 01:00 (EST, 06:00Z) is not a slot: the next one is tomorrow's.
      expect(iso(nextDigestSlot(ny(1), first))).toBe('2026-11-02T06:00:00.000Z');
      expect(digestPeriod(ny(1), at('2026-11-01T06:00:00Z'))).toBe(digestPeriod(ny(1), first));
    });
  });

  describe('Europe/Berlin', () => {
    const berlin = (hour: number) => daily('Europe/Berlin', hour);
    it('an hour the clocks skip (02:00 on 29 March) sends at 03:00 CEST', () => {
      expect(iso(nextDigestSlot(berlin(2), at('2026-03-28T23:30:00Z')))).toBe('2026-03-29T01:00:00.000Z');
    });
    it('an hour the clocks repeat (02:00 on 25 October) sends at the first 02:00, CEST', () => {
      expect(iso(nextDigestSlot(berlin(2), at('2026-10-24T22:30:00Z')))).toBe('2026-10-25T00:00:00.000Z');
    });
    it('a local date is the key: 23:30Z on 1 December is already 2 December in Berlin', () => {
      expect(digestPeriod(berlin(8), at('2026-12-01T23:30:00Z'))).toBe('2026-12-02');
    });
  });

  describe('Australia/Lord_Howe (a 30-minute shift)', () => {
    const lordHowe = (hour: number) => daily('Australia/Lord_Howe', hour);
    it('02:00 on 4 October does not exist (02:00 → 02:30): it sends at the first moment the clock reads 02:00 or later, 02:30', () => {
      expect(iso(nextDigestSlot(lordHowe(2), at('2026-10-03T12:00:00Z')))).toBe('2026-10-03T15:30:00.000Z');
    });
    it('keeps its hour through the change back on 5 April (+11 → +10:30)', () => {
      expect(iso(nextDigestSlot(lordHowe(8), at('2026-04-03T12:00:00Z')))).toBe('2026-04-03T21:00:00.000Z');
      expect(iso(nextDigestSlot(lordHowe(8), at('2026-04-05T12:00:00Z')))).toBe('2026-04-05T21:30:00.000Z');
    });
  });

  describe('Asia/Kolkata (no daylight saving, +05:30)', () => {
    it('09:00 is 03:30Z every day of the year, on the others’ change days too', () => {
      for (const day of ['2026-03-08', '2026-03-29', '2026-10-25', '2026-11-01', '2026-12-31'])
        expect(iso(nextDigestSlot(daily('Asia/Kolkata', 9), at(`${day}T00:00:00Z`)))).toBe(`${day}T03:30:00.000Z`);
    });
  });
});

describe('weekdays and weekly digests', () => {
  it('weekdays left out carry to the next allowed day: Friday after its slot → Monday', () => {
    const weekdaysOnly = daily('Europe/Berlin', 8, ['mon', 'tue', 'wed', 'thu', 'fri']);
    // Friday 4 December 2026, 10:00 Berlin.
    expect(iso(nextDigestSlot(weekdaysOnly, at('2026-12-04T09:00:00Z')))).toBe('2026-12-07T07:00:00.000Z');
    // Sunday: the latest slot is Friday's.
    expect(iso(latestDigestSlot(weekdaysOnly, at('2026-12-06T12:00:00Z')))).toBe('2026-12-04T07:00:00.000Z');
  });

  it('a weekly digest goes on its weekday at its hour, keyed by the ISO week of that local date', () => {
    const wednesdays = weekly('America/New_York', 18, 'wed');
    const slot = nextDigestSlot(wednesdays, at('2026-11-30T12:00:00Z'));
    expect(iso(slot)).toBe('2026-12-02T23:00:00.000Z');
    expect(digestPeriod(wednesdays, slot)).toBe('2026-W49');
    expect(iso(nextDigestSlot(wednesdays, slot))).toBe('2026-12-09T23:00:00.000Z');
  });

  it('the ISO week of a date near new year belongs to the ISO year: 1 January 2027 is 2026-W53', () => {
    expect(digestPeriod(weekly('UTC', 8, 'fri'), at('2027-01-01T08:00:00Z'))).toBe('2026-W53');
  });
});

describe('where an item queued now is due: the next digest not yet claimed', () => {
  const utc = daily('UTC', 8);
  it("before today's hour: today's slot, read nothing", () => {
    expect(dueSlotFor(utc, at('2026-11-30T07:00:00Z'), false)).toEqual({ dueAt: at('2026-11-30T08:00:00Z'), period: '2026-11-30' });
  });
  it("after today's hour with today's digest unclaimed: today's slot, already due (a missed hour is caught up)", () => {
    expect(dueSlotFor(utc, at('2026-11-30T10:00:00Z'), false)).toEqual({ dueAt: at('2026-11-30T08:00:00Z'), period: '2026-11-30' });
  });
  it("after today's hour with today's digest claimed: tomorrow's", () => {
    expect(dueSlotFor(utc, at('2026-11-30T10:00:00Z'), true)).toEqual({ dueAt: at('2026-12-01T08:00:00Z'), period: '2026-12-01' });
  });
  it("weekly: this week's slot until it is claimed, then next week's", () => {
    const mondays = weekly('UTC', 8, 'mon');
    expect(dueSlotFor(mondays, at('2026-12-02T10:00:00Z'), false).period).toBe('2026-W49');
    expect(dueSlotFor(mondays, at('2026-12-02T10:00:00Z'), true)).toEqual({ dueAt: at('2026-12-07T08:00:00Z'), period: '2026-W50' });
  });
});

describe('schedule fields at the boundary', () => {
  it('a time zone is an IANA name the platform knows, spelled canonically', () => {
    expect(timezoneSchema.parse('europe/berlin')).toBe('Europe/Berlin');
    expect(timezoneSchema.safeParse('Mars/Olympus_Mons').success).toBe(false);
    expect(timezoneSchema.safeParse('x'.repeat(200)).success).toBe(false);
  });
  it('weekdays arrive as a list or comma text, leave in calendar order, each once; none is refused', () => {
    expect(weekdaysSchema.parse('fri, mon,MON')).toEqual(['mon', 'fri']);
    expect(weekdaysSchema.parse(['sun', 'sat'])).toEqual(['sat', 'sun']);
    expect(weekdaysSchema.safeParse([]).success).toBe(false);
    expect(weekdaysSchema.safeParse(['funday']).success).toBe(false);
  });
  it('the periods an item may be listed in span both cadences', () => {
    expect(periodsFrom('2026-11-30', 1)).toEqual(expect.arrayContaining(['2026-11-30', '2026-12-01', '2026-W49']));
    expect(periodsFrom('2026-W49', 0)).toEqual(expect.arrayContaining(['2026-W49', '2026-11-30']));
  });
});
