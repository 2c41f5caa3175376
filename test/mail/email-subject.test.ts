import { describe, expect, it } from 'vitest';
import {
  alertSubject,
  describeMatch,
  digestSubject,
  postingsPreheader,
  SUBJECT_MAX,
  subjectPay,
  truncateAtWord,
  welcomeSubject,
} from '../../lib/mail/email-subject';

const acme = { title: 'Senior React Engineer', company: 'Acme', pay: '$120k–$150k' };
const chars = (text: string) => Array.from(text).length;

describe('subjects lead with the count and the best match, within 60 characters', () => {
  it('an alert names the count, the title, the employer and the pay when they fit', () => {
    expect(alertSubject(3, acme)).toBe('3 new: Senior React Engineer at Acme, $120k–$150k');
    expect(alertSubject(1, { title: 'Staff Platform Engineer' })).toBe('1 new: Staff Platform Engineer');
  });

  it('a digest counts every match of its period and says it is the digest', () => {
    expect(digestSubject(25, acme)).toMatch(/^25 in your digest: Senior React Engineer at Acme/);
    expect(chars(digestSubject(25, acme))).toBeLessThanOrEqual(SUBJECT_MAX);
  });

  it('the welcome still begins with "Welcome", then the count and the top match', () => {
    expect(welcomeSubject(5, { title: 'Data Engineer', company: 'Acme' })).toBe('Welcome to Scout: 5 matches, top: Data Engineer at Acme');
    expect(welcomeSubject(1, null)).toBe('Welcome to Scout: 1 match');
    expect(welcomeSubject(5, acme)).toMatch(/^Welcome to Scout: 5 matches, top: Senior React Engineer/);
  });

  it('drops the pay, then the employer, before it cuts the title', () => {
    const room = 'Senior React Engineer at Acme'.length;
    expect(describeMatch(acme, room)).toBe('Senior React Engineer at Acme');
    const longEmployer = { ...acme, company: 'Acme Corporation International' };
    expect(describeMatch(longEmployer, 'Senior React Engineer, $120k–$150k'.length)).toBe('Senior React Engineer, $120k–$150k');
    expect(describeMatch(acme, 22)).toBe('Senior React Engineer');
    expect(describeMatch(acme, 15)).toBe('Senior React…');
  });

  it('a long title is cut at a word with an ellipsis, and the count stays first', () => {
    const title = 'Senior Full-Stack Engineer (React, Node.js, PostgreSQL) for our Payments Platform team in Berlin';
    const subject = alertSubject(12, { title, company: 'Acme Payments GmbH', pay: '€80k–€95k' });
    expect(subject.startsWith('12 new: Senior Full-Stack Engineer')).toBe(true);
    expect(subject.endsWith('…')).toBe(true);
    expect(chars(subject)).toBeLessThanOrEqual(SUBJECT_MAX);
    expect(subject).not.toMatch(/[\s,(]…$/);
  });

  it('one unbroken word, emoji and right-to-left text are cut by characters, never halving an emoji', () => {
    const subject = alertSubject(2, { title: '🚀'.repeat(100) });
    expect(chars(subject)).toBe(SUBJECT_MAX);
    expect(subject).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(truncateAtWord('x'.repeat(300), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(truncateAtWord('short', 10)).toBe('short');
  });

  it('an empty title still says what came', () => {
    expect(alertSubject(1, { title: '  ' })).toBe('1 new: a new posting');
  });
});

describe('the preheader carries the next titles, never the subject again', () => {
  const item = (title: string) => ({ title, employer: `${title} Inc`, excerpt: `About ${title}` });

  it('the titles after the first, and how many more', () => {
    const items = ['First', 'Second', 'Third', 'Fourth', 'Fifth'].map(item);
    const preheader = postingsPreheader(items, 10);
    expect(preheader).toBe('Also: Second · Third · Fourth · 11 more');
    expect(preheader).not.toContain('First');
  });

  it('two postings: only the second; and a digest’s lower-scored ones counted', () => {
    expect(postingsPreheader(['First', 'Second'].map(item))).toBe('Also: Second');
    expect(postingsPreheader(['First', 'Second'].map(item), 2)).toBe('Also: Second · 2 more');
  });

  it('one posting: who hires and the excerpt, not its title', () => {
    expect(postingsPreheader([item('Only')])).toBe('Only Inc — About Only');
    expect(postingsPreheader([{ title: 'Only', employer: null, excerpt: '' }])).toBe('');
  });

  it('long titles are cut so three fit the preview', () => {
    const preheader = postingsPreheader(['First', 'y'.repeat(200), 'z'.repeat(200)].map(item));
    expect(chars(preheader)).toBeLessThan(110);
  });
});

describe('pay in a subject', () => {
  it('is short, and names a unit except for a year', () => {
    expect(subjectPay({ amount: 120_000, maxAmount: 150_000, currency: 'USD', kind: 'yearly' })).toBe('$120k–$150k');
    expect(subjectPay({ amount: 45, maxAmount: 60, currency: 'USD', kind: 'hourly' })).toBe('$45–$60/hr');
    expect(subjectPay({ amount: 4_000, currency: 'EUR', kind: 'fixed' })).toBe('€4k fixed');
    expect(subjectPay({ amount: 1_500_000, currency: 'GBP', kind: 'yearly' })).toBe('£1.5M');
  });

  it('is left out when the currency is not stated, or there is none', () => {
    expect(subjectPay({ amount: 150_000, maxAmount: 250_000, currency: null, kind: 'yearly' })).toBeNull();
    expect(subjectPay(null)).toBeNull();
  });
});
