import { describe, expect, it } from 'vitest';
import type { Posting } from '../../lib/feeds/posting';
import { composeInstantAlert, nearMissLine, type MailSettings } from '../../lib/mail/compose-email';
import { scorePosting } from '../../lib/matching/score-posting';
import { NO_MIN_PAY } from '../../lib/pay/minimum-pay';
import type { Subscriber } from '../../lib/subscribers/subscriber';

const now = new Date('2026-12-09T06:00:00Z');
const settings: MailSettings = { appUrl: 'https://scout.example.com', from: 'Scout <alerts@scout.test>', linkSecret: 'l'.repeat(44) };
const subscriber: Subscriber = {
  id: 'dWlk',
  email: 'ada@example.com',
  keywords: ['react'],
  excludes: [],
  minPay: { ...NO_MIN_PAY, yearly: { amount: 100_000, currency: 'USD' } },
  mode: 'instant',
  about: '',
  profileVersion: 1,
  fitThreshold: 60,
  status: 'active',
  timezone: 'UTC',
  digestHour: null,
  weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
  weeklyDay: 'mon',
  createdAt: now,
  confirmedAt: now,
  updatedAt: now,
};
const posting: Posting = {
  id: 'greenhouse-acme_abc',
  source: 'greenhouse-acme',
  guid: 'abc',
  title: 'Senior React engineer',
  url: 'https://boards.greenhouse.io/acme/jobs/42',
  description: 'Build the dashboard.',
  budget: { amount: 70_000, maxAmount: 90_000, currency: 'EUR', kind: 'yearly' },
  skills: [],
  publishedAt: now,
};

describe('pay the minimum could not be compared with', () => {
  it('is kept, and the email says its pay was not compared, in the html and the text', async () => {
    const verdict = scorePosting(subscriber, posting);
    if (!verdict.matched) throw new Error('a posting in another currency must be kept');
    const mail = await composeInstantAlert({
      subscriber,
      items: [{ posting: { ...posting, firstSeenAt: now }, score: verdict.score, reasons: verdict.reasons }],
      settings,
      now,
    });
    expect(mail.html).toContain('pay in EUR not compared with your $100,000/year minimum');
    expect(mail.text).toContain('pay in EUR not compared with your $100,000/year minimum');
  });
});

describe("the digest's near-miss line", () => {
  it('names the minimums the subscriber set', () => {
    const minPay = { ...NO_MIN_PAY, yearly: { amount: 100_000, currency: 'USD' }, hourly: { amount: 50, currency: 'USD' } };
    expect(nearMissLine({ underMinBudget: 3, excluded: 1, notAFit: 0, minPay })).toBe(
      '4 more matched your keywords: 3 under your minimum pay ($50/hour, $100,000/year), 1 with a word you exclude.',
    );
    expect(nearMissLine({ underMinBudget: 0, excluded: 0, notAFit: 0, minPay })).toBeNull();
  });
});
