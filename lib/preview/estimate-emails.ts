import { nextDigestSlot, type DigestSchedule } from '../subscribers/digest-schedule';
import type { DeliveryMode } from '../subscribers/subscriber';
import type { EmailEstimate } from './preview';

/** A matching posting as the estimate sees it: when Scout first stored it, and the run that did. */
export type MatchSeen = { seenAt: Date; runId: string };

/**
 * How many emails a week's matches would have made, per cadence, by the rules the sending code
 * follows rather than by a rate:
 *
 *   - instant: one alert per run that stored a matching posting (a run sends each subscriber one
 *     alert with all its new matches), so the number of distinct runs among the matches;
 *   - daily: one digest per slot that has items, an item waiting for the first slot at or after it
 *     was stored (digest-schedule.ts: the subscriber's hour, in their zone, on their weekdays; a
 *     Saturday match on a Mon–Fri schedule goes out on Monday), and never more than the week has
 *     slots (a 7-day window can touch the same weekday's slot twice);
 *   - weekly: one if anything matched;
 *   - feed: no email; the feed gains every match.
 *
 * Pure: the matches and the schedule in, a number out.
 */
export function estimateEmails(input: {
  mode: DeliveryMode;
  schedule: DigestSchedule | null;
  matches: readonly MatchSeen[];
}): EmailEstimate {
  const { mode, schedule, matches } = input;
  const estimate = (emailsPerWeek: number, feedItems = 0): EmailEstimate => ({ mode, emailsPerWeek, feedItems });
  if (matches.length === 0) return estimate(0);
  switch (mode) {
    case 'feed':
      return estimate(0, matches.length);
    case 'instant':
      return estimate(new Set(matches.map((m) => m.runId)).size);
    case 'weekly':
      return estimate(1);
    case 'daily': {
      if (!schedule) throw new Error('a daily estimate needs the digest schedule');
      // "At or after": strictly after one millisecond before.
      const slots = new Set(matches.map((m) => nextDigestSlot(schedule, new Date(m.seenAt.getTime() - 1)).getTime()));
      return estimate(Math.min(slots.size, schedule.weekdays.length));
    }
  }
}
