import { afterEach, describe, expect, it } from 'vitest';
import { greenhouseAdapter, parseGreenhouseJobs, unescapeContent } from '../../../lib/feeds/adapters/greenhouse-adapter';
import { FeedParseError } from '../../../lib/feeds/feed-errors';
import { postingId } from '../../../lib/feeds/posting';
import { startFeedServer, type FeedServer } from '../../../scripts/sample-feed/server';
import { boardFixture, readOverLoopback } from './read-board';

const list = boardFixture('greenhouse', 'greenhouse.json');
const parse = (text: string, company: string | null = 'Northwind Labs') => parseGreenhouseJobs('gh', text, { company });
const jobs = (...items: unknown[]) => JSON.stringify({ jobs: items, meta: { total: items.length } });
const job = (fields: Record<string, unknown> = {}) => ({
  id: 1,
  title: 'Backend Engineer',
  updated_at: '2026-11-30T05:00:00Z',
  location: { name: 'Berlin' },
  absolute_url: 'https://boards.greenhouse.io/acme/jobs/1',
  content: '&lt;p&gt;Build it.&lt;/p&gt;',
  ...fields,
});

function parseError(text: string): FeedParseError {
  try {
    parse(text);
  } catch (error) {
    expect(error).toBeInstanceOf(FeedParseError);
    return error as FeedParseError;
  }
  throw new Error('the answer was accepted');
}

describe('greenhouse: the documented "List jobs" answer becomes Postings', () => {
  it('reads every job post of the fixture, exactly', () => {
    const at = (iso: string) => new Date(iso);
    expect(parse(list)).toEqual([
      {
        id: postingId('gh', '7104223'),
        source: 'gh',
        guid: '7104223',
        title: 'Senior Backend Engineer (Remote, US)',
        url: 'https://boards.greenhouse.io/northwindlabs/jobs/7104223',
        description:
          'Northwind Labs builds routing software for regional freight carriers. We are hiring a backend engineer to own our dispatch API. What you will do • Design and run services in TypeScript and Postgres • Work with carriers & shippers to shape the API The US base salary range for this full-time position is $150,000 - $185,000 per year.',
        budget: { amount: 150_000, maxAmount: 185_000, currency: 'USD', kind: 'yearly' },
        skills: ['Engineering', 'Remote'],
        publishedAt: at('2026-07-14T14:21:07Z'),
        company: 'Northwind Labs',
        location: 'Remote - United States',
        remote: true,
      },
      {
        id: postingId('gh', '7104381'),
        source: 'gh',
        guid: '7104381',
        title: 'Product Designer',
        url: 'https://boards.greenhouse.io/northwindlabs/jobs/7104381',
        description:
          'Design the tools dispatchers use every day — from the route board to the "late load" alerts. You have: 4+ years of product design, a portfolio, and patience for B2B edge cases. Read about our design team',
        budget: null,
        skills: ['Design', 'East Coast', 'New York City', 'Full-time'],
        publishedAt: at('2026-07-12T20:02:45Z'),
        company: 'Northwind Labs',
        location: 'New York, NY',
        remote: null,
      },
      {
        id: postingId('gh', '7104402'),
        source: 'gh',
        guid: '7104402',
        title: 'Customer Support Specialist (Part-time, Hourly)',
        url: 'https://boards.greenhouse.io/northwindlabs/jobs/7104402',
        description: 'Answer carrier questions by phone and chat, 20 hours a week. Pay: $24 - $28 per hour.',
        budget: { amount: 24, maxAmount: 28, currency: 'USD', kind: 'hourly' },
        skills: ['Customer Success', 'Austin'],
        publishedAt: at('2026-07-10T13:15:00Z'),
        company: 'Northwind Labs',
        location: 'Austin, TX',
        remote: null,
      },
      {
        id: postingId('gh', '7109915'),
        source: 'gh',
        guid: '7109915',
        title: 'General Application - Engineering',
        url: 'https://boards.greenhouse.io/northwindlabs/jobs/7109915',
        description: "Don't see the right role? Tell us about yourself.",
        budget: null,
        skills: [],
        publishedAt: at('2026-06-30T16:00:00Z'),
        company: 'Northwind Labs',
        location: 'Anywhere',
        remote: true,
      },
      {
        id: postingId('gh', '7110230'),
        source: 'gh',
        guid: '7110230',
        title: 'Data Engineer',
        url: 'https://careers.northwind.example/jobs?gh_jid=7110230',
        description: 'Build the pipelines behind our ETA predictions (Python, dbt, BigQuery). Salary: €70.000 – €90.000 per year.',
        budget: { amount: 70_000, maxAmount: 90_000, currency: 'EUR', kind: 'yearly' },
        skills: ['Engineering', 'Berlin'],
        publishedAt: at('2026-07-15T12:44:19Z'),
        company: 'Northwind Labs',
        location: 'Berlin, Germany; Remote - EU',
        remote: true,
      },
    ]);
  });

  it('content is escaped HTML: one level is undone, then markup becomes text and a literal & stays one &', () => {
    const [posting] = parse(jobs(job({ content: '&lt;p&gt;Tom &amp;amp; Jerry &amp;lt;3 &amp;mdash; &lt;b&gt;bold&lt;/b&gt;&lt;/p&gt;' })));
    expect(posting.description).toBe('Tom & Jerry <3 — bold');
    // A single pass: "&amp;lt;" is the text "&lt;", never a tag.
    expect(unescapeContent('&amp;lt;script&amp;gt;')).toBe('&lt;script&gt;');
    // Content that already holds real tags was not escaped and is left as it came.
    expect(unescapeContent('<p>a &amp;lt; b</p>')).toBe('<p>a &amp;lt; b</p>');
  });

  it('pay is read only from the text: the list has no pay fields, and one request per job is not made', () => {
    const postings = parse(list);
    expect(postings.find((p) => p.guid === '7104402')?.budget).toEqual({ amount: 24, maxAmount: 28, currency: 'USD', kind: 'hourly' });
    expect(postings.find((p) => p.guid === '7104223')?.budget).toEqual({
      amount: 150_000,
      maxAmount: 185_000,
      currency: 'USD',
      kind: 'yearly',
    });
    expect(postings.filter((p) => p.budget !== null)).toHaveLength(3);
  });

  it('a location that says remote or anywhere is remote; any other says nothing either way', () => {
    const remote = (name: string) => parse(jobs(job({ location: { name } })))[0].remote;
    expect(remote('Remote - EU')).toBe(true);
    expect(remote('Anywhere')).toBe(true);
    expect(remote('Berlin, Germany')).toBeNull();
  });

  it('an optional field of the wrong type is null and the job is kept', () => {
    const [posting] = parse(
      jobs(job({ updated_at: 1_700_000_000, location: 'Berlin', absolute_url: 42, content: { html: 'x' }, departments: 'Engineering' })),
    );
    expect(posting).toMatchObject({ guid: '1', title: 'Backend Engineer', publishedAt: null, location: null, url: null, description: '' });
    expect(posting.skills).toEqual([]);
  });

  it('a job without its id, or with a title of the wrong type, refuses the whole answer, naming the job and field', () => {
    const { id: _id, ...withoutId } = job();
    expect(parseError(jobs(job(), withoutId)).message).toMatch(/^job 1: id is missing or not/);
    expect(parseError(jobs(job({ id: '7104223' }))).message).toMatch(/^job 0: id is missing or not/);
    expect(parseError(jobs(job({ title: 7 }))).message).toMatch(/^job 0: title is missing or not/);
  });

  it('an answer without a jobs array is refused without quoting it', () => {
    expect(parseError(JSON.stringify({ jobs: 'secret-token' })).message).toBe('Greenhouse answer: jobs is missing or not an array');
    expect(parseError('[]').message).not.toContain('[');
  });
});

describe('greenhouse: reading a board over the network', () => {
  let server: FeedServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it('asks the board list with content, then the board for its name when the entry names no company', async () => {
    server = await startFeedServer();
    const read = await readOverLoopback(greenhouseAdapter, { id: 'gh', params: { baseUrl: server.url, board: 'northwindlabs' } });
    expect(read.status).toBe('ok');
    if (read.status !== 'ok') return;
    expect(read.postings).toHaveLength(5);
    expect(read.postings.every((p) => p.company === 'Northwind Labs')).toBe(true);
    expect(server.requests().map((r) => r.path)).toEqual(['/v1/boards/northwindlabs/jobs', '/v1/boards/northwindlabs']);
  });

  it('the local stack serves the board on the sample day: newest at 05:00Z on 30 Nov 2026, all within retention', async () => {
    server = await startFeedServer();
    const read = await readOverLoopback(greenhouseAdapter, { id: 'gh', params: { baseUrl: server.url, board: 'northwindlabs' } });
    const times = read.status === 'ok' ? read.postings.map((p) => p.publishedAt!.getTime()) : [];
    expect(Math.max(...times)).toBe(Date.parse('2026-11-30T05:00:00Z'));
    expect(Math.min(...times)).toBeGreaterThan(Date.parse('2026-11-30T06:00:00Z') - 30 * 86_400_000);
  });

  it('an entry that names its company costs one request; a board whose name fails still gives its postings', async () => {
    server = await startFeedServer();
    const named = await readOverLoopback(greenhouseAdapter, {
      id: 'gh',
      params: { baseUrl: server.url, board: 'northwindlabs', company: 'Northwind' },
    });
    expect(named.status === 'ok' && named.postings[0].company).toBe('Northwind');
    expect(server.requests()).toHaveLength(1);

    server.setFeed('/v1/boards/northwindlabs', { body: 'down', contentType: 'text/plain', status: 503 });
    const unnamed = await readOverLoopback(greenhouseAdapter, { id: 'gh', params: { baseUrl: server.url, board: 'northwindlabs' } });
    expect(unnamed.status === 'ok' && unnamed.postings.map((p) => p.company)).toEqual([null, null, null, null, null]);
  });

  it('sends the validators of the last success and takes a 304 as nothing new', async () => {
    server = await startFeedServer();
    const first = await readOverLoopback(greenhouseAdapter, { id: 'gh', params: { baseUrl: server.url, board: 'northwindlabs' } });
    if (first.status !== 'ok') throw new Error('first read failed');
    const again = await readOverLoopback(
      greenhouseAdapter,
      { id: 'gh', params: { baseUrl: server.url, board: 'northwindlabs' } },
      first.validators,
    );
    expect(again).toEqual({ status: 'not-modified' });
  });

  it('is labelled by company, else by board', () => {
    const source = (params: Record<string, unknown>) => ({
      kind: 'greenhouse',
      id: 'gh',
      params: greenhouseAdapter.params.parse(params),
      timeoutMs: 1,
      maxBytes: 1,
      minIntervalMinutes: 0,
    });
    expect(greenhouseAdapter.label(source({ board: 'acme' }))).toBe('Greenhouse · acme');
    expect(greenhouseAdapter.label(source({ board: 'acme', company: 'Acme Inc' }))).toBe('Greenhouse · Acme Inc');
    expect(greenhouseAdapter.params.safeParse({ board: 'acme', url: 'https://x' }).success).toBe(false);
    expect(greenhouseAdapter.params.safeParse({ board: '../admin' }).success).toBe(false);
  });
});
