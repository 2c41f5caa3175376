import { describe, expect, it } from 'vitest';
import { describeEstimate } from '../../lib/preview/describe-estimate';
import { estimateEmails, type MatchSeen } from '../../lib/preview/estimate-emails';
import { WEEKDAYS, type DigestSchedule } from '../../lib/subscribers/digest-schedule';

// 2026-11-30 is a Monday.
const daily = (weekdays: DigestSchedule['weekdays'] = WEEKDAYS, timezone = 'UTC', hour = 8): DigestSchedule => ({
  cadence: 'daily',
  timezone,
  hour,
  weekdays,
  weeklyDay: 'mon',
});
const weekly: DigestSchedule = { cadence: 'weekly', timezone: 'UTC', hour: 8, weekdays: WEEKDAYS, weeklyDay: 'fri' };
const seen = (iso: string, runId = `run-${iso}`): MatchSeen => ({ seenAt: new Date(iso), runId });

describe('emails a week, by the sending rules of each cadence', () => {
  it.each([
    ['instant', null],
    ['daily', daily()],
    ['weekly', weekly],
    ['feed', null],
  ] as const)('%s: nothing matched is no email and an empty feed', (mode, schedule) => {
    expect(estimateEmails({ mode, schedule, matches: [] })).toEqual({ mode, emailsPerWeek: 0, feedItems: 0 });
  });

  it('instant: one alert per run that stored a matching posting, however many it stored', () => {
    const matches = [
      seen('2026-11-30T06:00:00Z', 'run-a'),
      seen('2026-11-30T06:00:00Z', 'run-a'),
      seen('2026-11-30T06:15:00Z', 'run-b'),
      seen('2026-12-02T10:00:00Z', 'run-c'),
      seen('2026-12-02T10:00:00Z', 'run-c'),
    ];
    expect(estimateEmails({ mode: 'instant', schedule: null, matches }).emailsPerWeek).toBe(3);
  });

  it.each([
    {
      why: 'every day at 08:00 UTC: one digest per slot the matches wait for (07:00 and 07:59 share Monday’s, 09:00 waits for Tuesday’s)',
      schedule: daily(),
      at: ['2026-11-30T07:00:00Z', '2026-11-30T07:59:00Z', '2026-11-30T09:00:00Z', '2026-12-02T10:00:00Z'],
      emails: 3,
    },
    {
      why: 'a match stored at the very slot goes in that slot’s digest',
      schedule: daily(),
      at: ['2026-11-30T08:00:00Z', '2026-11-30T07:30:00Z'],
      emails: 1,
    },
    {
      why: 'Mon–Fri: Saturday’s and Sunday’s matches wait for Monday’s digest, one email',
      schedule: daily(['mon', 'tue', 'wed', 'thu', 'fri']),
      at: ['2026-12-05T09:00:00Z', '2026-12-06T09:00:00Z', '2026-12-07T07:00:00Z'],
      emails: 1,
    },
    {
      why: 'in the subscriber’s zone: 08:30 and 09:30 in New York fall either side of their 09:00 digest',
      schedule: daily(WEEKDAYS, 'America/New_York', 9),
      at: ['2026-12-01T13:30:00Z', '2026-12-01T14:30:00Z'],
      emails: 2,
    },
    {
      why: 'a 7-day window can reach the same weekday’s slot twice; a week never holds more digests than allowed days',
      schedule: daily(),
      at: Array.from({ length: 8 }, (_, day) => `2026-11-${String(23 + day).padStart(2, '0')}T07:00:00Z`),
      emails: 7,
    },
    {
      why: 'the same cap on Mon–Wed: at most three a week',
      schedule: daily(['mon', 'tue', 'wed']),
      at: Array.from({ length: 8 }, (_, day) => `2026-11-${String(23 + day).padStart(2, '0')}T07:00:00Z`),
      emails: 3,
    },
  ])('daily — $why', ({ schedule, at, emails }) => {
    expect(estimateEmails({ mode: 'daily', schedule, matches: at.map((iso) => seen(iso)) }).emailsPerWeek).toBe(emails);
  });

  it('weekly: one email if anything matched, however much', () => {
    const matches = ['2026-11-30T07:00:00Z', '2026-12-03T07:00:00Z', '2026-12-05T07:00:00Z'].map((iso) => seen(iso));
    expect(estimateEmails({ mode: 'weekly', schedule: weekly, matches })).toEqual({ mode: 'weekly', emailsPerWeek: 1, feedItems: 0 });
  });

  it('feed: no email; every match is in the feed', () => {
    const matches = ['2026-11-30T07:00:00Z', '2026-12-03T07:00:00Z'].map((iso) => seen(iso));
    expect(estimateEmails({ mode: 'feed', schedule: null, matches })).toEqual({ mode: 'feed', emailsPerWeek: 0, feedItems: 2 });
  });
});

describe('the estimate in words', () => {
  it.each([
    [{ mode: 'instant', emailsPerWeek: 3, feedItems: 0 }, 'About 3 emails a week: one for each check that found new matches.'],
    [{ mode: 'daily', emailsPerWeek: 1, feedItems: 0 }, 'About 1 email a week: one digest on each of your days with matches.'],
    [{ mode: 'weekly', emailsPerWeek: 1, feedItems: 0 }, 'About 1 email a week: your weekly digest.'],
    [{ mode: 'daily', emailsPerWeek: 0, feedItems: 0 }, 'No emails: nothing matched in the last 7 days.'],
    [{ mode: 'feed', emailsPerWeek: 0, feedItems: 12 }, 'No email; 12 postings in your feed.'],
    [{ mode: 'feed', emailsPerWeek: 0, feedItems: 1 }, 'No email; 1 posting in your feed.'],
    [{ mode: 'feed', emailsPerWeek: 0, feedItems: 0 }, 'No email; nothing of the last 7 days would be in your feed.'],
    [{ mode: 'instant', emailsPerWeek: 1200, feedItems: 0 }, 'About 1,200 emails a week: one for each check that found new matches.'],
  ] as const)('%o → %s', (estimate, words) => {
    expect(describeEstimate(estimate, 7)).toBe(words);
  });
});
