import { WEEKDAYS, type Weekday } from './digest-schedule';
import type { Subscriber } from './subscriber';

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
