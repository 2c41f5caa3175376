import { DateTime } from 'luxon';
import { z } from 'zod';
import { DEFAULT_TIMEZONE } from './default-time-zone';

/**
 * When a subscriber's digest may go out: a local hour in their IANA time zone, on the weekdays they
 * allow (daily), or on one weekday (weekly). Pure time math over the platform's Intl time zone data
 * through Luxon: no offset arithmetic of our own, so a zone whose rules change is right as soon as
 * the runtime's ICU data is.
 *
 * A *slot* is the instant a digest becomes due; a *period* is what one digest covers and names
 * its key: the subscriber's local date (`2026-12-02`) for daily, the ISO week of that local date
 * (`2026-W49`) for weekly. The outbox row `digest_{uid}_{period}` is created once per period, so
 * whatever the schedule does (a change of zone, of hour, the hour a DST change repeats) a period
 * sends at most one digest.
 *
 * Daylight-saving rules, one sentence each:
 *   - an hour the clocks skip sends at the first moment the local clock reads that hour or later
 *     (New York 02:00 on the spring-forward day → 03:00; Lord Howe 02:00 → 02:30, its 30-minute shift);
 *   - an hour the clocks repeat sends at its first occurrence, and once: both occurrences are the
 *     same local date, so the same key.
 */

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export type DigestCadence = 'daily' | 'weekly';

export type DigestSchedule = {
  cadence: DigestCadence;
  /** IANA zone name, e.g. `Europe/Berlin`. */
  timezone: string;
  /** 0–23, local. */
  hour: number;
  /** Daily: the local weekdays a digest may go out on (never empty). */
  weekdays: readonly Weekday[];
  /** Weekly: the local weekday it goes out on. */
  weeklyDay: Weekday;
};

export { DEFAULT_TIMEZONE };
export const DEFAULT_WEEKLY_DAY: Weekday = 'mon';

/** Does the runtime know this IANA zone? Luxon asks Intl, so the answer is the platform's. */
export const isKnownTimeZone = (name: string) => name.length <= 64 && DateTime.now().setZone(name).isValid;

/** Canonical spelling of a known zone (`europe/berlin` → `Europe/Berlin`), so equal zones compare equal. */
export const canonicalTimeZone = (name: string) => new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;

export const timezoneSchema = z
  .string({ error: 'must be a time zone name, like Europe/Berlin' })
  .trim()
  .refine(isKnownTimeZone, 'must be a time zone name, like Europe/Berlin')
  .transform(canonicalTimeZone);

export const digestHourSchema = z.coerce
  .number({ error: 'must be an hour from 0 to 23' })
  .int('must be an hour from 0 to 23')
  .min(0, 'must be an hour from 0 to 23')
  .max(23, 'must be an hour from 0 to 23');

export const weekdaySchema = z.enum(WEEKDAYS, { error: 'must be a weekday: mon, tue, wed, thu, fri, sat or sun' });

/** A list of weekdays as JSON list or comma text; kept in calendar order, each once. */
export const weekdaysSchema = z.preprocess(
  (value) => (typeof value === 'string' ? value.split(/[,\s]+/).filter(Boolean) : value),
  z
    .array(z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), weekdaySchema))
    .min(1, 'choose at least one weekday')
    .transform((days) => WEEKDAYS.filter((d) => days.includes(d))),
);

const LUXON_WEEKDAY: Record<Weekday, number> = { mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6, sun: 7 };

/** The schedule's slot on one local date, or null when the schedule sends nothing that day. */
function slotOn(schedule: DigestSchedule, date: DateTime): DateTime | null {
  const allowed =
    schedule.cadence === 'weekly'
      ? date.weekday === LUXON_WEEKDAY[schedule.weeklyDay]
      : schedule.weekdays.some((d) => LUXON_WEEKDAY[d] === date.weekday);
  if (!allowed) return null;
  // Luxon moves a skipped wall time forward by the gap, which is our first rule.
  const slot = DateTime.fromObject({ year: date.year, month: date.month, day: date.day, hour: schedule.hour }, { zone: schedule.timezone });
  return firstOccurrence(slot);
}

/**
 * A repeated wall time has two instants; Luxon resolves to one of them. The earlier one is the
 * slot: if the instant one offset-change earlier reads the same wall time, take it.
 */
function firstOccurrence(slot: DateTime): DateTime {
  const before = slot.minus({ hours: 3 });
  const shift = before.offset - slot.offset;
  if (shift <= 0) return slot;
  const earlier = slot.minus({ minutes: shift });
  return earlier.toFormat('yyyy-MM-dd HH:mm') === slot.toFormat('yyyy-MM-dd HH:mm') ? earlier : slot;
}

/** The days a search walks: a weekly schedule needs at most 7, and two more cover the zone's date line. */
const SEARCH_DAYS = 9;

/** The first slot strictly after `after`. */
export function nextDigestSlot(schedule: DigestSchedule, after: Date): Date {
  const start = DateTime.fromJSDate(after, { zone: schedule.timezone }).startOf('day').minus({ days: 1 });
  for (let i = 0; i <= SEARCH_DAYS; i++) {
    const slot = slotOn(schedule, start.plus({ days: i }));
    if (slot && slot.toMillis() > after.getTime()) return slot.toJSDate();
  }
  throw new Error(`no digest slot within ${SEARCH_DAYS} days of ${after.toISOString()} (schedule without a weekday?)`);
}

/** The last slot at or before `at`. */
export function latestDigestSlot(schedule: DigestSchedule, at: Date): Date {
  const start = DateTime.fromJSDate(at, { zone: schedule.timezone }).startOf('day').plus({ days: 1 });
  for (let i = 0; i <= SEARCH_DAYS; i++) {
    const slot = slotOn(schedule, start.minus({ days: i }));
    if (slot && slot.toMillis() <= at.getTime()) return slot.toJSDate();
  }
  throw new Error(`no digest slot within ${SEARCH_DAYS} days before ${at.toISOString()} (schedule without a weekday?)`);
}

/** The period a slot (or any instant) falls in, as the digest key names it: local date, or ISO week. */
export function digestPeriod(schedule: Pick<DigestSchedule, 'cadence' | 'timezone'>, at: Date): string {
  const local = DateTime.fromJSDate(at, { zone: schedule.timezone });
  return schedule.cadence === 'weekly' ? `${local.weekYear}-W${String(local.weekNumber).padStart(2, '0')}` : local.toISODate()!;
}

/** The first local date of a period (`2026-W49` → `2026-11-30`, a Monday), or null when it is not a period key. */
export function periodStart(period: string): string | null {
  const date = DateTime.fromISO(isWeekPeriod(period) ? `${period}-1` : period, { zone: 'utc' });
  return date.isValid ? date.toISODate() : null;
}

/** Is this a weekly period key (`2026-W49`) rather than a local date? */
export const isWeekPeriod = (period: string) => /^\d{4}-W\d{2}$/.test(period);

/**
 * The period `now` is in, and whether its slot has passed: only then can its digest have been
 * claimed on this schedule, so only then does a claim need to ask (one outbox read).
 */
export function currentPeriod(schedule: DigestSchedule, now: Date): { period: string; slotPassed: boolean } {
  const period = digestPeriod(schedule, now);
  return { period, slotPassed: digestPeriod(schedule, latestDigestSlot(schedule, now)) === period };
}

/**
 * Where an item queued now is due, by the rule above all others: the next digest not yet claimed
 * for its subscriber. While the current period's slot has passed and its digest is unclaimed, that
 * is the current period (this run's flush takes it, as a missed hour is caught up); once claimed,
 * the next slot. Before the current period's slot it is that slot: a digest claimed for this
 * period on an earlier schedule (a change of hour mid-day) is found by the flush, which then moves
 * the item on to the next slot.
 */
export function dueSlotFor(schedule: DigestSchedule, now: Date, currentClaimed: boolean): { dueAt: Date; period: string } {
  const { period, slotPassed } = currentPeriod(schedule, now);
  if (slotPassed && !currentClaimed) return { dueAt: latestDigestSlot(schedule, now), period };
  const next = nextDigestSlot(schedule, now);
  return { dueAt: next, period: digestPeriod(schedule, next) };
}

/**
 * The digest periods from `period` on, over `days` days, in both forms (dates and ISO weeks): the
 * keys of every digest that may list an item queued for `period`, whichever cadence it was claimed in.
 */
export function periodsFrom(period: string, days: number): string[] {
  const first = periodStart(period);
  if (!first) return [period];
  const start = DateTime.fromISO(first, { zone: 'utc' });
  const keys = new Set([period]);
  for (let n = 0; n <= days; n++) {
    const date = start.plus({ days: n });
    keys.add(date.toISODate()!);
    keys.add(`${date.weekYear}-W${String(date.weekNumber).padStart(2, '0')}`);
  }
  return [...keys];
}
