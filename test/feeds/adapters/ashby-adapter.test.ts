import { afterEach, describe, expect, it } from 'vitest';
import { ashbyAdapter, parseAshbyJobs } from '../../../lib/feeds/adapters/ashby-adapter';
import { FeedParseError } from '../../../lib/feeds/feed-errors';
import { postingId } from '../../../lib/feeds/posting';
import { startFeedServer, type FeedServer } from '../../../scripts/sample-feed/server';
import { boardFixture, readOverLoopback } from './read-board';

const fixture = boardFixture('ashby', 'ashby.json');
const parse = (text: string, company: string | null = 'Quillstack') => parseAshbyJobs('ab', text, { company });
const board = (...jobs: unknown[]) => JSON.stringify({ apiVersion: '1', jobs });
const ID = '0b1c2d3e-0000-4000-8000-000000000001';
const job = (fields: Record<string, unknown> = {}) => ({
  id: ID,
  title: 'Backend Engineer',
  location: 'Berlin',
  secondaryLocations: [],
  department: 'Engineering',
  isListed: true,
  isRemote: false,
  workplaceType: 'OnSite',
  descriptionHtml: '<p>Build it.</p>',
  descriptionPlain: 'Build it.',
  publishedAt: '2026-11-30T05:00:00.000+00:00',
  employmentType: 'FullTime',
  jobUrl: `https://jobs.ashbyhq.com/acme/${ID}`,
  ...fields,
});
const component = (fields: Record<string, unknown>) => ({
  compensationType: 'Salary',
  interval: '1 YEAR',
  currencyCode: 'USD',
  minValue: 100_000,
  maxValue: 120_000,
  ...fields,
});
const salary = (compensation: unknown) => parse(board(job({ compensation })))[0].budget;

function parseError(text: string): FeedParseError {
  try {
    parse(text);
  } catch (error) {
    expect(error).toBeInstanceOf(FeedParseError);
    return error as FeedParseError;
  }
  throw new Error('the answer was accepted');
}

describe('ashby: the documented job board answer becomes Postings', () => {
  it('reads every listed job of the fixture, exactly, and skips the unlisted one', () => {
    expect(parse(fixture)).toEqual([
      {
        id: postingId('ab', '4c1f8e2a-7b3d-4f6e-9a0c-2d5b8e1f3a47'),
        source: 'ab',
        guid: '4c1f8e2a-7b3d-4f6e-9a0c-2d5b8e1f3a47',
        title: 'Staff Platform Engineer',
        url: 'https://jobs.ashbyhq.com/quillstack/4c1f8e2a-7b3d-4f6e-9a0c-2d5b8e1f3a47',
        description:
          "Quillstack makes collaborative spreadsheets for finance teams. What you'll do - Run our Kubernetes & Postgres fleet - Cut p99 latency below 200 ms",
        budget: { amount: 110_000, maxAmount: 140_000, currency: 'EUR', kind: 'yearly' },
        skills: ['Engineering', 'Platform', 'FullTime', 'Remote'],
        publishedAt: new Date('2026-07-13T09:30:12.418Z'),
        company: 'Quillstack',
        location: 'Remote - Europe; Amsterdam',
        remote: true,
      },
      {
        id: postingId('ab', '7d2e9b4f-3a1c-4e8d-b6f0-5c9a2e7d1b38'),
        source: 'ab',
        guid: '7d2e9b4f-3a1c-4e8d-b6f0-5c9a2e7d1b38',
        title: 'Account Executive, Mid-Market',
        url: 'https://jobs.ashbyhq.com/quillstack/7d2e9b4f-3a1c-4e8d-b6f0-5c9a2e7d1b38',
        description:
          'Sell Quillstack to CFOs & controllers at 200–2,000 person companies. Quota: "land and expand", 3 days/week in our NYC office.',
        budget: { amount: 90_000, maxAmount: 110_000, currency: 'USD', kind: 'yearly' },
        skills: ['Sales', 'Mid-Market', 'FullTime', 'Hybrid'],
        publishedAt: new Date('2026-07-11T15:02:44.090Z'),
        company: 'Quillstack',
        location: 'New York, NY',
        remote: false,
      },
      {
        id: postingId('ab', '2a6c8e0f-4b1d-4c3e-9f5a-7b9d1e3f5a62'),
        source: 'ab',
        guid: '2a6c8e0f-4b1d-4c3e-9f5a-7b9d1e3f5a62',
        title: 'Support Engineer (Part-time)',
        url: 'https://jobs.ashbyhq.com/quillstack/2a6c8e0f-4b1d-4c3e-9f5a-7b9d1e3f5a62',
        description: 'Help customers debug formulas and imports, 20 hours a week.',
        budget: { amount: 35, maxAmount: 42, currency: 'CAD', kind: 'hourly' },
        skills: ['Customer Experience', 'Support', 'PartTime', 'OnSite'],
        publishedAt: new Date('2026-07-08T12:00:00.000Z'),
        company: 'Quillstack',
        location: 'Toronto, ON',
        remote: false,
      },
      {
        id: postingId('ab', '9f3b5d7a-1c2e-4f6a-8b0d-3e5f7a9c1d24'),
        source: 'ab',
        guid: '9f3b5d7a-1c2e-4f6a-8b0d-3e5f7a9c1d24',
        title: 'Founding Designer',
        url: 'https://jobs.ashbyhq.com/quillstack/9f3b5d7a-1c2e-4f6a-8b0d-3e5f7a9c1d24',
        description: "Our first designer. You'll shape the product and the brand.",
        budget: null,
        skills: ['Design', 'FullTime'],
        publishedAt: new Date('2026-06-29T18:45:00.000Z'),
        company: 'Quillstack',
        location: 'San Francisco',
        remote: false,
      },
    ]);
  });

  it("the salary is the one tier's Salary component, in the period it names; equity is not pay", () => {
    const tier = (...components: unknown[]) => ({ compensationTiers: [{ components }] });
    expect(salary(tier(component({ compensationType: 'EquityPercentage', currencyCode: null }), component({})))).toEqual({
      amount: 100_000,
      maxAmount: 120_000,
      currency: 'USD',
      kind: 'yearly',
    });
    expect(salary(tier(component({ interval: '1 HOUR', minValue: 40, maxValue: 40, currencyCode: 'GBP' })))).toEqual({
      amount: 40,
      currency: 'GBP',
      kind: 'hourly',
    });
    expect(salary(tier(component({ interval: '1 MONTH', minValue: 5_000, maxValue: 6_000, currencyCode: 'EUR' })))).toEqual({
      amount: 5_000,
      maxAmount: 6_000,
      currency: 'EUR',
      kind: 'monthly',
    });
    // Without tiers, the summary components say it.
    expect(salary({ summaryComponents: [component({ currencyCode: 'CHF' })] })).toMatchObject({ currency: 'CHF', kind: 'yearly' });
  });

  it('several pay tiers state the range of their summary: its components, else its text', () => {
    const tiers = [
      { components: [component({ minValue: 151_000, maxValue: 207_000 })] },
      { components: [component({ minValue: 168_000, maxValue: 231_000 })] },
    ];
    const summary = [component({ minValue: 151_000, maxValue: 231_000 })];
    expect(salary({ compensationTiers: tiers, summaryComponents: summary })).toEqual({
      amount: 151_000,
      maxAmount: 231_000,
      currency: 'USD',
      kind: 'yearly',
    });
    expect(salary({ compensationTiers: tiers, compensationTierSummary: '$151K – $231K • Offers Equity • Multiple Ranges' })).toEqual({
      amount: 151_000,
      maxAmount: 231_000,
      currency: 'USD',
      kind: 'yearly',
    });
  });

  it('an unknown interval states no salary (the text may still); a missing currency is kept unknown, never guessed', () => {
    expect(salary({ compensationTiers: [{ components: [component({ interval: '2 WEEK' })] }] })).toBeNull();
    expect(salary({ compensationTiers: [{ components: [component({ currencyCode: null })] }] })).toEqual({
      amount: 100_000,
      maxAmount: 120_000,
      currency: null,
      kind: 'yearly',
    });
    expect(salary(undefined)).toBeNull();
  });

  it('workplaceType says remote or not; without it isRemote does; with neither nothing is said', () => {
    const remote = (fields: Record<string, unknown>) => parse(board(job(fields)))[0].remote;
    expect(remote({ workplaceType: 'Remote', isRemote: false })).toBe(true);
    expect(remote({ workplaceType: 'Hybrid', isRemote: true })).toBe(false);
    expect(remote({ workplaceType: undefined, isRemote: true })).toBe(true);
    expect(remote({ workplaceType: undefined, isRemote: false })).toBe(false);
    expect(remote({ workplaceType: undefined, isRemote: undefined })).toBeNull();
  });

  it('the description is descriptionPlain; when empty, descriptionHtml as text', () => {
    const [html] = parse(
      board(job({ descriptionPlain: '', descriptionHtml: '<p>Run <b>Postgres</b> &amp; Redis</p><ul><li>On call</li></ul>' })),
    );
    expect(html.description).toBe('Run Postgres & Redis • On call');
    const [plain] = parse(board(job({ descriptionPlain: 'Literal <b> & text' })));
    expect(plain.description).toBe('Literal <b> & text');
  });

  it('a job without an id takes it from the last segment of jobUrl, the same id Ashby gives', () => {
    const { id: _id, ...withoutId } = job();
    expect(parse(board(withoutId))[0].id).toBe(postingId('ab', ID));
  });

  it('an optional field of the wrong type is null and the job is kept', () => {
    const [read] = parse(
      board(job({ location: 7, secondaryLocations: 'Amsterdam', isRemote: 'yes', workplaceType: 3, publishedAt: 1, compensation: [] })),
    );
    expect(read).toMatchObject({ title: 'Backend Engineer', location: null, remote: null, publishedAt: null, budget: null });
  });

  it('a job with neither id nor jobUrl, or an id or title of the wrong type, refuses the whole answer', () => {
    const { id: _id, jobUrl: _url, ...anonymous } = job();
    expect(parseError(board(job(), anonymous)).message).toBe('jobs[1].id is missing and jobUrl names no job');
    expect(parseError(board(job({ id: 12 }))).message).toMatch(/^job 0: id is missing or not/);
    expect(parseError(board(job({ title: ['Engineer'] }))).message).toMatch(/^job 0: title is missing or not/);
  });

  it('an answer without a jobs array is refused', () => {
    expect(parseError(JSON.stringify({ apiVersion: '1', results: [] })).message).toBe('Ashby answer: jobs is missing or not an array');
  });
});

describe('ashby: reading a job board over the network', () => {
  let server: FeedServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it('reads the sample board at its documented path, on the sample day', async () => {
    server = await startFeedServer();
    const read = await readOverLoopback(ashbyAdapter, {
      id: 'ab',
      params: { baseUrl: server.url, board: 'quillstack', company: 'Quillstack' },
    });
    if (read.status !== 'ok') throw new Error('read failed');
    expect(read.postings).toHaveLength(4);
    expect(server.requests().map((r) => r.path)).toEqual(['/posting-api/job-board/quillstack']);
    const times = read.postings.map((p) => p.publishedAt!.getTime());
    expect(Math.max(...times)).toBe(Date.parse('2026-11-30T05:00:00Z'));
    expect(Math.min(...times)).toBeGreaterThan(Date.parse('2026-10-31T06:00:00Z'));
  });

  it('is labelled by company, else by board', () => {
    const source = (params: Record<string, unknown>) => ({
      kind: 'ashby',
      id: 'ab',
      params: ashbyAdapter.params.parse(params),
      timeoutMs: 1,
      maxBytes: 1,
      minIntervalMinutes: 0,
    });
    expect(ashbyAdapter.label(source({ board: 'quillstack' }))).toBe('Ashby · quillstack');
    expect(ashbyAdapter.label(source({ board: 'quillstack', company: 'Quillstack' }))).toBe('Ashby · Quillstack');
  });
});
