import { describe, expect, it } from 'vitest';
import {
  budgetChangeLine,
  composeDailyDigest,
  composeInstantAlert,
  repostLine,
  type CardPosting,
  type MailSettings,
} from '../../lib/mail/compose-email';
import type { Subscriber } from '../../lib/subscribers/subscriber';

const now = new Date('2026-12-09T06:00:00Z');
const settings: MailSettings = { appUrl: 'https://scout.example.com', from: 'Scout <alerts@scout.test>', linkSecret: 'l'.repeat(44) };
const subscriber: Subscriber = {
  id: 'dWlk',
  email: 'ada@example.com',
  keywords: ['react'],
  excludes: [],
  minPay: { fixed: null, hourly: null, yearly: null },
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

const posting: CardPosting = {
  id: 'greenhouse-acme_abc',
  source: 'greenhouse-acme',
  guid: 'abc',
  title: 'Senior React engineer',
  url: 'https://boards.greenhouse.io/acme/jobs/42',
  description: 'Build the dashboard.',
  budget: { amount: 600, currency: 'USD', kind: 'fixed' },
  skills: ['react'],
  publishedAt: now,
  firstSeenAt: new Date('2026-11-30T06:00:00Z'),
  repostedAt: now,
  previousBudget: { amount: 300, currency: 'USD', kind: 'fixed' },
  sightings: [
    { source: 'greenhouse-acme', label: 'Greenhouse · acme', url: 'https://boards.greenhouse.io/acme/jobs/42', seenAt: now },
    { source: 'lever-acme', label: 'Lever · acme', url: 'https://jobs.lever.co/acme/42-abc', seenAt: now },
  ],
};
const item = (p: CardPosting) => ({ posting: p, score: 80, reasons: ['title: react'] });

describe('the card of a job seen on several sources', () => {
  it('lists every source, each linking to its listing, and says it was reposted and what happened to the budget', async () => {
    const mail = await composeInstantAlert({ subscriber, items: [item(posting)], settings, now });
    expect(mail.html).toContain('Seen on');
    expect(mail.html).toContain('href="https://boards.greenhouse.io/acme/jobs/42"');
    expect(mail.html).toContain('href="https://jobs.lever.co/acme/42-abc"');
    expect(mail.html).toContain('Greenhouse · acme');
    expect(mail.html).toContain('reposted; first seen 9 days ago · budget raised $300 → $600');
    expect(mail.text).toContain(
      'Seen on Greenhouse · acme <https://boards.greenhouse.io/acme/jobs/42>, Lever · acme <https://jobs.lever.co/acme/42-abc>',
    );
    expect(mail.text).toContain('reposted; first seen 9 days ago · budget raised $300 → $600');
  });

  it('the digest card carries the same lines', async () => {
    const mail = await composeDailyDigest({
      subscriber,
      items: [item(posting)],
      moreCount: 0,
      day: '2026-12-09',
      settings,
      now,
    });
    expect(mail.html).toContain('reposted; first seen 9 days ago · budget raised $300 → $600');
    expect(mail.html).toContain('href="https://jobs.lever.co/acme/42-abc"');
  });

  it('a first listing shows where it was seen and nothing more; a posting stored before dedup shows neither', async () => {
    const first = { ...posting, repostedAt: null, previousBudget: null, sightings: posting.sightings!.slice(0, 1) };
    const mail = await composeInstantAlert({ subscriber, items: [item(first)], settings, now });
    expect(mail.text).toContain('Seen on Greenhouse · acme');
    expect(mail.text).not.toMatch(/reposted|budget (raised|lowered|changed)/);
    const legacy: CardPosting = { ...first, sightings: undefined, firstSeenAt: undefined };
    expect((await composeInstantAlert({ subscriber, items: [item(legacy)], settings, now })).text).not.toContain('Seen on');
  });

  it('hostile text in a source name or link never reaches the HTML as markup', async () => {
    const hostile = {
      ...posting,
      sightings: [
        {
          source: 'x',
          label: '<script>alert(1)</script><img src=x onerror=alert(1)>',
          url: 'https://evil.example/"><b>x</b>',
          seenAt: now,
        },
      ],
    };
    const mail = await composeInstantAlert({ subscriber, items: [item(hostile)], settings, now });
    expect(mail.html).not.toMatch(/<script|<img|<b>x/i);
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('the change lines', () => {
  it('says raised or lowered by the top of the range, the amounts without their kind; another kind or currency is a change', () => {
    const fixed = (amount: number, maxAmount?: number) => ({
      amount,
      currency: 'USD',
      kind: 'fixed' as const,
      ...(maxAmount ? { maxAmount } : {}),
    });
    expect(budgetChangeLine({ ...posting, previousBudget: fixed(600), budget: fixed(300) })).toBe('budget lowered $600 → $300');
    expect(budgetChangeLine({ ...posting, previousBudget: fixed(300), budget: fixed(300, 500) })).toBe('budget raised $300 → $300–$500');
    expect(budgetChangeLine({ ...posting, previousBudget: fixed(300), budget: { amount: 40, currency: 'USD', kind: 'hourly' } })).toBe(
      'budget changed $300 fixed → $40.00/hour',
    );
    expect(budgetChangeLine({ ...posting, previousBudget: null })).toBeNull();
  });

  it('counts the days since the job was first seen to when the email is composed', () => {
    expect(repostLine(posting, new Date('2026-11-30T20:00:00Z'))).toBe('reposted; first seen today');
    expect(repostLine(posting, new Date('2026-12-01T07:00:00Z'))).toBe('reposted; first seen 1 day ago');
    expect(repostLine({ ...posting, repostedAt: null }, now)).toBeNull();
  });
});
