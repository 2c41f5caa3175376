import { composeConfirmation, composeManageLink } from '../../lib/mail/compose-account-email';
import {
  composeDailyDigest,
  composeInstantAlert,
  composeWelcome,
  type CardPosting,
  type MailSettings,
  type ScoredPosting,
} from '../../lib/mail/compose-email';
import type { Subscriber } from '../../lib/subscribers/subscriber';

/** Realistic emails of postings: the real composers, with postings as the boards send them. */
export const now = new Date('2026-11-30T08:00:00Z');
export const settings: MailSettings = {
  appUrl: 'https://scout.example.com',
  from: 'Scout <alerts@scout.test>',
  linkSecret: 'l'.repeat(44),
};

export const berlinSubscriber: Subscriber = {
  id: Buffer.from('ada@example.com').toString('base64url'),
  email: 'ada@example.com',
  keywords: ['react', 'typescript'],
  excludes: [],
  minPay: { fixed: null, hourly: null, yearly: null },
  mode: 'daily',
  about: '',
  profileVersion: 1,
  fitThreshold: 60,
  status: 'active',
  timezone: 'Europe/Berlin',
  digestHour: 8,
  weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
  weeklyDay: 'mon',
  feedTokenVersion: 2,
  linkVersion: 1,
  createdAt: now,
  confirmedAt: now,
  updatedAt: now,
};

const TITLES = [
  'Senior React Engineer',
  'Staff Frontend Engineer, Design Systems',
  'Full-Stack Developer (TypeScript, Node.js)',
  'React Native Developer for a Health App',
  'Frontend Lead, Payments',
];

export function realisticPosting(n: number): CardPosting {
  const title = TITLES[n % TITLES.length];
  return {
    id: `greenhouse-acme_${String(n).padStart(20, '0')}`,
    source: 'greenhouse-acme',
    guid: `job-${n}`,
    title: n < TITLES.length ? title : `${title} #${n}`,
    url: `https://boards.greenhouse.io/acme/jobs/${4_100_000 + n}?gh_src=scout`,
    description:
      'Acme builds the payments platform thousands of shops run on. You will own our React and TypeScript front end, ' +
      'pair with design on a component library, and ship to production every day. We offer remote work within the EU, ' +
      'a learning budget and 30 days of holiday.',
    budget: { amount: 120_000, maxAmount: 150_000, currency: 'USD', kind: 'yearly' },
    skills: ['react', 'typescript'],
    publishedAt: new Date(now.getTime() - (n + 1) * 3_600_000),
    company: 'Acme',
    location: 'Berlin, Germany',
    remote: true,
    sightings: [
      { source: 'greenhouse-acme', label: 'Greenhouse', url: `https://boards.greenhouse.io/acme/jobs/${4_100_000 + n}`, seenAt: now },
      { source: 'remotive', label: 'Remotive', url: `https://remotive.com/remote-jobs/software-dev/acme-${n}`, seenAt: now },
    ],
  };
}

export const realisticItems = (count: number): ScoredPosting[] =>
  Array.from({ length: count }, (_, n) => ({
    posting: realisticPosting(n),
    score: 90 - n,
    reasons: ['“react” in the title', '“typescript” in the skills'],
    fit: 82 - n,
    fitReason: 'Senior front-end role on React and TypeScript, remote in the EU as you asked.',
  }));

/**
 * Every kind of email Scout sends, composed by the real composers with realistic data: the digest
 * at its default size with its near-miss, sources and next-digest lines. `alertItems` lets a test
 * put a hostile card in the alert.
 */
export const everyEmail = (alertItems: ScoredPosting[] = realisticItems(5)): [string, () => Promise<{ html: string }>][] => [
  ['alert', () => composeInstantAlert({ subscriber: berlinSubscriber, items: alertItems, settings, now })],
  [
    'digest',
    () =>
      composeDailyDigest({
        subscriber: berlinSubscriber,
        items: realisticItems(20),
        moreCount: 4,
        day: '2026-11-30',
        filteredOut: { underMinBudget: 2, excluded: 1, notAFit: 1, minPay: berlinSubscriber.minPay },
        coverage: { postings: 412, sources: 6, unreachable: 1, unreachableSince: new Date('2026-11-27T10:00:00Z') },
        nextDigest: NEXT_DIGEST,
        settings,
        now,
      }),
  ],
  [
    'welcome',
    () => composeWelcome({ subscriber: berlinSubscriber, items: realisticItems(5), windowDays: 7, nextEmail: NEXT_DIGEST, settings, now }),
  ],
  ['confirmation', () => composeConfirmation({ subscriber: berlinSubscriber, nonce: 'n'.repeat(22), settings, now })],
  ['already subscribed', () => composeManageLink({ subscriber: berlinSubscriber, settings, now })],
];

const NEXT_DIGEST = 'Your next digest comes on Tuesday 1 December at 08:00 Europe/Berlin, with what Scout finds until then.';
