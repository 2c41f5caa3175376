import { DateTime } from 'luxon';
import { nextDigestSlot, WEEKDAYS, type Weekday } from './digest-schedule';
import { digestScheduleOf, type Subscriber } from './subscriber';

/** Each weekday's name, as pages and emails spell it. */
export const DAY_NAMES: Record<Weekday, string> = {
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
  sun: 'Sunday',
};
const SHORT = (d: Weekday) => DAY_NAMES[d].slice(0, 3);

/** "Mon–Fri", "Mon, Wed, Fri", "" for every day. */
export function describeWeekdays(days: readonly Weekday[]): string {
  if (days.length === 0 || days.length === WEEKDAYS.length) return '';
  const idx = days.map((d) => WEEKDAYS.indexOf(d)).sort((a, b) => a - b);
  const run = idx.every((v, i) => i === 0 || v === idx[i - 1] + 1);
  if (run && idx.length >= 3) return `${SHORT(WEEKDAYS[idx[0]])}–${SHORT(WEEKDAYS[idx[idx.length - 1]])}`;
  return idx.map((i) => SHORT(WEEKDAYS[i])).join(', ');
}

const hourText = (hour: number) => `${String(hour).padStart(2, '0')}:00`;

/**
 * What a subscriber gets, in words, for the confirm page, the preferences page and the ops page:
 * "one digest of the best matches at 09:00 America/New_York, Mon–Fri".
 */
export function describeCadence(
  subscriber: Pick<Subscriber, 'mode' | 'timezone' | 'digestHour' | 'weekdays' | 'weeklyDay'>,
  defaultHour: number,
): string {
  const at = `${hourText(subscriber.digestHour ?? defaultHour)} ${subscriber.timezone}`;
  switch (subscriber.mode) {
    case 'instant':
      return 'an email as soon as a posting fits';
    case 'feed':
      return 'no email: matches appear in your private feed and archive';
    case 'weekly':
      return `one weekly digest of the best matches, ${DAY_NAMES[subscriber.weeklyDay]}s at ${at}`;
    case 'daily': {
      const days = describeWeekdays(subscriber.weekdays);
      return `one digest of the best matches at ${at}${days ? `, ${days}` : ''}`;
    }
  }
}

/**
 * When the next email comes after `now`, as a sentence, for the welcome email and the confirmed
 * page: an instant subscriber hears as soon as a run finds a posting (runs are every 15 minutes
 * where the scheduler follows the deploy docs), a digest subscriber at their next slot, in their
 * own zone, and a feed subscriber never by email.
 */
export function describeNextEmail(
  subscriber: Pick<Subscriber, 'mode' | 'timezone' | 'digestHour' | 'weekdays' | 'weeklyDay'>,
  now: Date,
  defaultHour: number,
  /** `first` when nothing was sent yet (the confirmed page without a welcome), `next` after the welcome. */
  which: 'first' | 'next' = 'next',
): string {
  const schedule = digestScheduleOf(subscriber, defaultHour);
  if (!schedule) {
    return subscriber.mode === 'feed'
      ? 'Scout sends you no email: new matches appear in your private feed and archive as they are found.'
      : `Your ${which} email comes as soon as a new posting fits you: Scout looks for new postings about every 15 minutes.`;
  }
  const slot = DateTime.fromJSDate(nextDigestSlot(schedule, now), { zone: schedule.timezone });
  const when = `${slot.toFormat('cccc d LLLL', { locale: 'en-GB' })} at ${slot.toFormat('HH:mm')} ${schedule.timezone}`;
  const digest = schedule.cadence === 'weekly' ? 'weekly digest' : 'digest';
  return `Your ${which} ${digest} comes on ${when}, with what Scout finds until then.`;
}
