import { afterEach, describe, expect, it } from 'vitest';
import { leverAdapter, leverPostingsUrl, parseLeverPostings } from '../../../lib/feeds/adapters/lever-adapter';
import { FeedParseError } from '../../../lib/feeds/feed-errors';
import { postingId } from '../../../lib/feeds/posting';
import { startFeedServer, type FeedServer } from '../../../scripts/sample-feed/server';
import { boardFixture, readOverLoopback } from './read-board';

const fixture = boardFixture('lever', 'lever.json');
const parse = (text: string, company: string | null = 'Harbor Health') => parseLeverPostings('lv', text, { company });
const postings = (...items: unknown[]) => JSON.stringify(items);
const posting = (fields: Record<string, unknown> = {}) => ({
  id: 'a1b2c3d4-0000-4000-8000-000000000001',
  text: 'Backend Engineer',
  categories: { commitment: 'Full-time', team: 'Platform', location: 'Berlin', allLocations: ['Berlin'] },
  workplaceType: 'on-site',
  createdAt: Date.parse('2026-11-30T05:00:00Z'),
  description: '<div>Build it.</div>',
  descriptionPlain: 'Build it.',
  lists: [],
  additional: '',
  hostedUrl: 'https://jobs.lever.co/acme/a1b2c3d4-0000-4000-8000-000000000001',
  ...fields,
});
const salary = (salaryRange: unknown) => parse(postings(posting({ salaryRange })))[0].budget;

function parseError(text: string): FeedParseError {
  try {
    parse(text);
  } catch (error) {
    expect(error).toBeInstanceOf(FeedParseError);
    return error as FeedParseError;
  }
  throw new Error('the answer was accepted');
}

describe('lever: the documented JSON-mode postings become Postings', () => {
  it('reads every posting of the fixture, exactly', () => {
    expect(parse(fixture)).toEqual([
      {
        id: postingId('lv', '3f2c9a1e-6b7d-4e21-9c55-0a8b7d1e4f10'),
        source: 'lv',
        guid: '3f2c9a1e-6b7d-4e21-9c55-0a8b7d1e4f10',
        title: 'Senior Frontend Engineer',
        url: 'https://jobs.lever.co/harborhealth/3f2c9a1e-6b7d-4e21-9c55-0a8b7d1e4f10',
        description:
          "Harbor Health runs the booking system for 900 clinics. You will own the patient-facing booking flow in React & TypeScript. What you'll do • Ship the new booking flow • Keep our Core Web Vitals green What we're looking for • 5+ years building web apps • Care for accessibility (WCAG 2.2) We are an equal opportunity employer.",
        budget: { amount: 160_000, maxAmount: 195_000, currency: 'USD', kind: 'yearly' },
        skills: ['Web Platform', 'Engineering', 'Full-time', 'remote'],
        publishedAt: new Date(1783933200000),
        company: 'Harbor Health',
        location: 'Remote - US',
        remote: true,
      },
      {
        id: postingId('lv', '8d41e0b7-2c3a-4f9e-a1d6-5b7c9e0f2a33'),
        source: 'lv',
        guid: '8d41e0b7-2c3a-4f9e-a1d6-5b7c9e0f2a33',
        title: 'Clinic Onboarding Specialist <Contract>',
        url: 'https://jobs.lever.co/harborhealth/8d41e0b7-2c3a-4f9e-a1d6-5b7c9e0f2a33',
        description:
          'Help new clinics go live — on site for launch week, remote the rest of the time. Note: travel <25% of the time & a valid driver\'s licence is required. Requirements • 2+ years in customer onboarding • Comfort with "go-live" pressure',
        budget: { amount: 32, maxAmount: 38, currency: 'USD', kind: 'hourly' },
        skills: ['Onboarding', 'Operations', 'Contract', 'hybrid'],
        publishedAt: new Date(1783587600000),
        company: 'Harbor Health',
        location: 'Chicago, IL; Milwaukee, WI',
        remote: false,
      },
      {
        id: postingId('lv', 'c7a9b2d4-91e8-4d0f-8f3b-6e2a1c5d7b90'),
        source: 'lv',
        guid: 'c7a9b2d4-91e8-4d0f-8f3b-6e2a1c5d7b90',
        title: 'Data Analyst',
        url: 'https://jobs.lever.co/harborhealth/c7a9b2d4-91e8-4d0f-8f3b-6e2a1c5d7b90',
        description: 'Turn appointment data into decisions for clinic managers.',
        budget: null,
        skills: ['Analytics', 'Data', 'Full-time', 'onsite'],
        publishedAt: new Date(1783328400000),
        company: 'Harbor Health',
        location: 'London, United Kingdom',
        remote: false,
      },
      {
        id: postingId('lv', '1b5e7f93-0d2c-4a6b-b8e4-9f3a2d6c8e71'),
        source: 'lv',
        guid: '1b5e7f93-0d2c-4a6b-b8e4-9f3a2d6c8e71',
        title: 'Head of Partnerships',
        url: 'https://jobs.lever.co/harborhealth/1b5e7f93-0d2c-4a6b-b8e4-9f3a2d6c8e71',
        description: 'Build our partner programme with EHR vendors.',
        budget: null,
        skills: ['Business Development', 'Full-time'],
        publishedAt: new Date(1782982800000),
        company: 'Harbor Health',
        location: 'Unspecified',
        remote: null,
      },
    ]);
  });

  it('createdAt is epoch milliseconds, not seconds', () => {
    expect(parse(fixture)[0].publishedAt?.toISOString()).toBe('2026-07-13T09:00:00.000Z');
  });

  it('salaryRange keeps its range, currency and period: a week, which has no kind, is 52 to the year', () => {
    expect(salary({ currency: 'eur', interval: 'per-year-salary', min: 60_000, max: 80_000 })).toEqual({
      amount: 60_000,
      maxAmount: 80_000,
      currency: 'EUR',
      kind: 'yearly',
    });
    expect(salary({ currency: 'GBP', interval: 'per-hour-wage', min: 25, max: 25 })).toEqual({
      amount: 25,
      currency: 'GBP',
      kind: 'hourly',
    });
    expect(salary({ currency: 'USD', interval: 'per-month-salary', min: 5_000, max: 6_000 })).toEqual({
      amount: 5_000,
      maxAmount: 6_000,
      currency: 'USD',
      kind: 'monthly',
    });
    expect(salary({ currency: 'USD', interval: 'per-day-wage', min: 400, max: 500 })).toEqual({
      amount: 400,
      maxAmount: 500,
      currency: 'USD',
      kind: 'daily',
    });
    expect(salary({ currency: 'USD', interval: 'per-week-salary', min: 1_000, max: null })).toEqual({
      amount: 52_000,
      currency: 'USD',
      kind: 'yearly',
    });
  });

  it('without a salaryRange, the pay section of real answers (salaryDescription) is read before the description', () => {
    const pay = (fields: Record<string, unknown>) => parse(postings(posting(fields)))[0].budget;
    expect(pay({ salaryDescriptionPlain: 'The salary range for this role is $140,000 - $165,000 per year.' })).toEqual({
      amount: 140_000,
      maxAmount: 165_000,
      currency: 'USD',
      kind: 'yearly',
    });
    expect(pay({ salaryDescription: '<div>Hourly: <b>$45 - $60/hr</b></div>' })).toEqual({
      amount: 45,
      maxAmount: 60,
      currency: 'USD',
      kind: 'hourly',
    });
    // The structured range still comes first.
    expect(
      pay({
        salaryRange: { currency: 'USD', interval: 'per-year-salary', min: 1, max: 2 },
        salaryDescriptionPlain: 'Salary: $90,000 per year',
      }),
    ).toEqual({ amount: 1, maxAmount: 2, currency: 'USD', kind: 'yearly' });
  });

  it('a salary of an unknown interval is left to the text; one without an ISO currency is kept with the currency unknown', () => {
    expect(salary({ currency: 'USD', interval: 'per-fortnight', min: 400, max: 500 })).toBeNull();
    expect(salary({ currency: 'USD', interval: 'constructor', min: 400, max: 500 })).toBeNull();
    const unknownCurrency = { amount: 60_000, maxAmount: 80_000, currency: null, kind: 'yearly' };
    expect(salary({ interval: 'per-year-salary', min: 60_000, max: 80_000 })).toEqual(unknownCurrency);
    expect(salary({ currency: 'dollars', interval: 'per-year-salary', min: 60_000, max: 80_000 })).toEqual(unknownCurrency);
    expect(salary({ currency: 'USD', interval: 'per-year-salary', min: 0, max: -1 })).toBeNull();
  });

  it('workplaceType remote is remote; hybrid and on-site are not; unspecified says nothing', () => {
    const remote = (workplaceType: unknown) => parse(postings(posting({ workplaceType })))[0].remote;
    expect(remote('remote')).toBe(true);
    expect(remote('hybrid')).toBe(false);
    expect(remote('on-site')).toBe(false);
    expect(remote('unspecified')).toBeNull();
    expect(remote(undefined)).toBeNull();
  });

  it('the location is every one of allLocations, else the primary location', () => {
    const location = (categories: unknown) => parse(postings(posting({ categories })))[0].location;
    expect(location({ location: 'Chicago, IL', allLocations: ['Chicago, IL', 'Milwaukee, WI'] })).toBe('Chicago, IL; Milwaukee, WI');
    expect(location({ location: 'Chicago, IL' })).toBe('Chicago, IL');
    expect(location({ location: 'Chicago, IL', allLocations: 'Chicago, IL' })).toBe('Chicago, IL');
  });

  it('the description is the styled HTML as text: opening and body, each list under its name, the closing', () => {
    const [read] = parse(
      postings(
        posting({
          description: '<div>Ship &amp; <b>own</b> it.</div>',
          lists: [{ text: 'You <bring>', content: '<li>Go &lt;3</li><li>SQL</li>' }],
          additional: '<div>EOE.</div>',
        }),
      ),
    );
    expect(read.description).toBe('Ship & own it. You <bring> • Go <3 • SQL EOE.');
    const [plainOnly] = parse(postings(posting({ description: null, descriptionPlain: 'Plain <b>text</b> & more' })));
    expect(plainOnly.description).toBe('Plain <b>text</b> & more');
  });

  it('an optional field of the wrong type is null and the posting is kept', () => {
    const [read] = parse(
      postings(posting({ createdAt: '2026-11-30', hostedUrl: 7, categories: 'Engineering', salaryRange: 'lots', lists: 'none' })),
    );
    expect(read).toMatchObject({ title: 'Backend Engineer', publishedAt: null, url: null, location: null, budget: null });
  });

  it('a posting without its id, or with a text of the wrong type, refuses the whole answer, naming the posting and field', () => {
    const { id: _id, ...withoutId } = posting();
    expect(parseError(postings(posting(), withoutId)).message).toMatch(/^posting 1: id is missing or not/);
    expect(parseError(postings(posting({ id: 42 }))).message).toMatch(/^posting 0: id is missing or not/);
    expect(parseError(postings(posting({ text: null }))).message).toMatch(/^posting 0: text is missing or not/);
    expect(parseError(postings('not a posting')).message).toBe('posting 0: the entry is missing or not an object');
  });

  it('an answer that is not an array is refused', () => {
    expect(parseError(JSON.stringify({ postings: [] })).message).toBe('Lever answer is missing or not an array');
  });
});

describe('lever: reading a site over the network', () => {
  let server: FeedServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it('asks the global or the EU host by region, and baseUrl over either', () => {
    expect(leverPostingsUrl({ site: 'acme', region: 'global' })).toBe('https://api.lever.co/v0/postings/acme?mode=json');
    expect(leverPostingsUrl({ site: 'acme', region: 'eu' })).toBe('https://api.eu.lever.co/v0/postings/acme?mode=json');
    expect(leverPostingsUrl({ site: 'acme', region: 'eu', baseUrl: 'http://127.0.0.1:3030/' })).toBe(
      'http://127.0.0.1:3030/v0/postings/acme?mode=json',
    );
    expect(leverAdapter.params.parse({ site: 'acme' })).toEqual({ site: 'acme', region: 'global' });
    expect(leverAdapter.params.safeParse({ site: 'acme', region: 'us' }).success).toBe(false);
  });

  it('reads the sample site at its documented path, on the sample day', async () => {
    server = await startFeedServer();
    const read = await readOverLoopback(leverAdapter, { id: 'lv', params: { baseUrl: server.url, site: 'harborhealth' } });
    if (read.status !== 'ok') throw new Error('read failed');
    expect(read.postings.map((p) => p.title)).toEqual([
      'Senior Frontend Engineer',
      'Clinic Onboarding Specialist <Contract>',
      'Data Analyst',
      'Head of Partnerships',
    ]);
    expect(server.requests().map((r) => r.path)).toEqual(['/v0/postings/harborhealth']);
    expect(read.postings[0].publishedAt?.toISOString()).toBe('2026-11-30T05:00:00.000Z');
    expect(Math.min(...read.postings.map((p) => p.publishedAt!.getTime()))).toBeGreaterThan(Date.parse('2026-10-31T06:00:00Z'));
  });

  it('is labelled by company, else by site', () => {
    const source = (params: Record<string, unknown>) => ({
      kind: 'lever',
      id: 'lv',
      params: leverAdapter.params.parse(params),
      timeoutMs: 1,
      maxBytes: 1,
      minIntervalMinutes: 0,
    });
    expect(leverAdapter.label(source({ site: 'acme' }))).toBe('Lever · acme');
    expect(leverAdapter.label(source({ site: 'acme', company: 'Acme' }))).toBe('Lever · Acme');
  });
});
