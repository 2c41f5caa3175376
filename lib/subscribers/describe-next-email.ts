import { DateTime } from 'luxon';
import { nextDigestSlot } from './digest-schedule';
import { digestScheduleOf, type Subscriber } from './subscriber';

// Apart from describe-schedule.ts, which must stay free of the server: this needs
// digestScheduleOf from subscriber.ts, whose module loads the Firestore client.
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

/**
 * A digest's own line saying when the one after it comes, on the subscriber's clock; null for a
 * subscriber no longer on digests (their queue is flushed one last time), and never a throw: a
 * line is not worth a digest.
 */
export function describeNextDigest(
  subscriber: Pick<Subscriber, 'mode' | 'timezone' | 'digestHour' | 'weekdays' | 'weeklyDay'>,
  now: Date,
  defaultHour: number,
): string | null {
  if (subscriber.mode !== 'daily' && subscriber.mode !== 'weekly') return null;
  try {
    return describeNextEmail(subscriber, now, defaultHour);
  } catch {
    return null;
  }
}
