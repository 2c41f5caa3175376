import { describe, expect, it } from 'vitest';
import { FeedParseError } from '../../../lib/feeds/feed-errors';
import { postingId } from '../../../lib/feeds/posting';
import { remotiveAdapter, remotiveJobsUrl } from '../../../lib/feeds/adapters/remotive-adapter';
import { json, readKindFixture, readOnce } from './read-adapter';

const NOW = new Date('2026-10-02T00:00:00Z');
const SOURCE = 'remotive-test';
const fixture = () => JSON.parse(readKindFixture('remotive', 'remote-jobs.json'));
const read = (body: unknown, params: Record<string, unknown> = {}) =>
  readOnce(remotiveAdapter, { params, served: { '/api/remote-jobs': json(body) }, now: NOW, id: SOURCE });
const postingsOf = async (body: unknown) => {
  const result = await read(body);
  if (result.status !== 'ok') throw new Error('expected postings');
  return result.postings;
};

describe('remotive adapter', () => {
  it('reads the documented answer into exact postings: plain text, yearly/hourly salary, location, tags, UTC dates', async () => {
    const postings = await postingsOf(fixture());
    expect(postings.map((p) => p.guid)).toEqual(['2091437', '2091402', '2091388', '2091351', '2091317']);
    expect(postings[0]).toEqual({
      id: postingId(SOURCE, '2091437'),
      source: SOURCE,
      guid: '2091437',
      title: 'Senior TypeScript Engineer',
      url: 'https://remotive.com/remote-jobs/software-dev/senior-typescript-engineer-2091437',
      description:
        'About us Brightwave builds forecasting tools for energy retailers. We are fully remote across 14 time zones. What you will do • Own our ingestion services (Node.js, TypeScript) • Design PostgreSQL schemas that survive 10x growth • Review code and mentor two mid-level engineers Apply through the link on this page.',
      budget: { amount: 120_000, maxAmount: 150_000, currency: 'USD', kind: 'yearly' },
      skills: ['typescript', 'node.js', 'postgresql', 'aws', 'Software Development', 'full-time'],
      publishedAt: new Date('2026-10-01T09:14:02Z'),
      company: 'Brightwave Analytics',
      location: 'Worldwide',
      remote: true,
    });
    expect(postings[1]).toMatchObject({
      company: 'Kestrel & Finch',
      location: 'Europe, UK',
      budget: { amount: 60_000, maxAmount: 75_000, currency: 'EUR', kind: 'yearly' },
      skills: ['figma', 'design systems', 'saas', 'Design', 'contract'],
    });
    expect(postings[2].budget).toEqual({ amount: 18, maxAmount: 22, currency: 'USD', kind: 'hourly' });
    // An empty salary and a missing one are both "not stated".
    expect(postings[3].budget).toBeNull();
    expect(postings[4]).toMatchObject({ budget: null, skills: ['Writing'], location: 'Americas, Europe' });
  });

  it('publication dates without an offset are read as UTC, whatever the server’s zone', async () => {
    const postings = await postingsOf(fixture());
    expect(postings.map((p) => p.publishedAt?.toISOString())).toEqual([
      '2026-10-01T09:14:02.000Z',
      '2026-09-30T17:41:55.000Z',
      '2026-09-30T11:02:13.000Z',
      '2026-09-29T20:30:00.000Z',
      '2026-09-29T08:05:47.000Z',
    ]);
  });

  it('description HTML becomes text: entities decoded once, scripts and link targets gone', async () => {
    const [, designer] = await postingsOf(fixture());
    expect(designer.description).toBe(
      "Kestrel & Finch is hiring We're looking for a designer who can move between research & pixels. 1. Run 4–6 customer interviews a month 2. Ship flows in Figma, hand off with specs Portfolio? Send it via our careers page.",
    );
    expect(designer.description).not.toMatch(/alert|utm_source|&amp;/);
  });

  it('a bad optional field keeps its job: wrong-typed salary, tags, date and location read as not stated', async () => {
    const body = fixture();
    Object.assign(body.jobs[0], {
      salary: 120000,
      tags: 'typescript',
      publication_date: 7,
      candidate_required_location: ['x'],
      company_name: {},
    });
    body.jobs[1].tags = ['figma', 3, null];
    const postings = await postingsOf(body);
    expect(postings).toHaveLength(5);
    expect(postings[0]).toMatchObject({
      title: 'Senior TypeScript Engineer',
      budget: null,
      publishedAt: null,
      location: null,
      company: null,
    });
    expect(postings[0].skills).toEqual(['Software Development', 'full-time']);
    expect(postings[1].skills).toEqual(['figma', 'Design', 'contract']);
  });

  it('a job without an id or a title refuses the whole answer, naming the job and field', async () => {
    const noId = fixture();
    delete noId.jobs[2].id;
    await expect(read(noId)).rejects.toThrow(new FeedParseError(SOURCE, 'job 2: id is missing or not a number'));
    const badTitle = fixture();
    badTitle.jobs[4].title = { text: 'Technical Writer' };
    await expect(read(badTitle)).rejects.toThrow(/^job 4: title is missing or not a string$/);
  });

  it('an answer without its jobs list is refused; its notices and counts are not required', async () => {
    await expect(read({ 'job-count': 0 })).rejects.toThrow(/^Remotive answer: jobs is missing or not an array$/);
    await expect(read([])).rejects.toThrow(FeedParseError);
    const bare = { jobs: fixture().jobs.slice(0, 1) };
    expect(await postingsOf(bare)).toHaveLength(1);
  });

  it('asks the documented path with the category, search and limit it was configured with', async () => {
    expect((await read(fixture())).requests).toEqual(['/api/remote-jobs']);
    expect(remotiveJobsUrl({ baseUrl: 'https://remotive.com', category: 'software-dev', search: 'rust & go', limit: 5 })).toBe(
      'https://remotive.com/api/remote-jobs?category=software-dev&search=rust+%26+go&limit=5',
    );
    expect(remotiveJobsUrl({ baseUrl: 'https://remotive.com' })).toBe('https://remotive.com/api/remote-jobs');
    const source = { kind: 'remotive', id: 'r', timeoutMs: 1, maxBytes: 1, minIntervalMinutes: 360 };
    expect(remotiveAdapter.label({ ...source, params: { baseUrl: 'https://remotive.com', category: 'software-dev' } })).toBe(
      'Remotive · software-dev',
    );
  });

  it('honours the terms: four requests a day at most, and a link back to Remotive', () => {
    expect(remotiveAdapter.minIntervalMinutes).toBe(360);
    expect(remotiveAdapter.redirects).toBe('same-host');
    expect(remotiveAdapter.attribution?.({} as never)).toEqual({ text: 'Jobs from Remotive', url: 'https://remotive.com' });
    expect(remotiveAdapter.params.safeParse({ url: 'https://remotive.com' }).success).toBe(false);
    expect(remotiveAdapter.params.parse({})).toEqual({ baseUrl: 'https://remotive.com' });
  });
});
