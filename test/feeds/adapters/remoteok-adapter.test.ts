import { describe, expect, it } from 'vitest';
import { FeedParseError } from '../../../lib/feeds/feed-errors';
import { postingId } from '../../../lib/feeds/posting';
import { remoteOkAdapter } from '../../../lib/feeds/adapters/remoteok-adapter';
import { json, readKindFixture, readOnce } from './read-adapter';

const NOW = new Date('2026-10-03T00:00:00Z');
const SOURCE = 'remoteok-test';
const fixture = () => JSON.parse(readKindFixture('remoteok', 'api.json'));
const read = (body: unknown) => readOnce(remoteOkAdapter, { params: {}, served: { '/api': json(body) }, now: NOW, id: SOURCE });
const postingsOf = async (body: unknown) => {
  const result = await read(body);
  if (result.status !== 'ok') throw new Error('expected postings');
  return result.postings;
};

describe('remoteok adapter', () => {
  it('reads the observed array into exact postings, the legal notice skipped', async () => {
    const postings = await postingsOf(fixture());
    expect(postings.map((p) => p.guid)).toEqual(['1137512', '1137509', '1137503', '1137498', '1137490']);
    expect(postings[0]).toEqual({
      id: postingId(SOURCE, '1137512'),
      source: SOURCE,
      guid: '1137512',
      title: 'Senior Rust Engineer',
      // The link-back the terms require, its host lower-cased.
      url: 'https://remoteok.com/remote-jobs/remote-senior-rust-engineer-ferrite-labs-1137512',
      description:
        'Ferrite Labs builds a storage engine for time-series data. You will • Work on the query planner • Profile & optimise hot paths',
      budget: { amount: 140_000, maxAmount: 180_000, currency: 'USD', kind: 'yearly' },
      skills: ['rust', 'backend', 'distributed systems', 'senior', 'engineer'],
      publishedAt: new Date('2026-10-02T16:00:05Z'),
      company: 'Ferrite Labs',
      location: 'Worldwide',
      remote: true,
    });
  });

  it('salary_min/max: 0 is not stated, one side is a single amount, a top under 1,000 is hourly; USD is inferred', async () => {
    const budgets = (await postingsOf(fixture())).map((p) => p.budget);
    expect(budgets).toEqual([
      { amount: 140_000, maxAmount: 180_000, currency: 'USD', kind: 'yearly' },
      null,
      null,
      { amount: 30, maxAmount: 36, currency: 'USD', kind: 'hourly' },
      { amount: 110_000, currency: 'USD', kind: 'yearly' },
    ]);
  });

  it('location is trimmed of its trailing ", " and empty reads as not stated; every job is remote', async () => {
    const postings = await postingsOf(fixture());
    expect(postings.map((p) => [p.company, p.location, p.remote])).toEqual([
      ['Ferrite Labs', 'Worldwide', true],
      ['PocketPay', 'Europe', true],
      ['Tandem CRM', null, true],
      ['Bluepine Games', 'Lisbon, Lisbon, Portugal', true],
      ['Northgrid', 'Remote - US', true],
    ]);
  });

  it('descriptions become text: mojibake repaired, entities decoded, the "mention the word" boilerplate and markup gone', async () => {
    const [rust, growth, , qa] = await postingsOf(fixture());
    expect(rust.description).not.toMatch(/mention the word|RMTg|FERRITE/);
    expect(growth.description).toBe(
      'About PocketPay We’re a payments app for freelancers in 30 countries. What you’ll do: run paid & organic campaigns, own the blog, report weekly. Salary: competitive. Perks: 4–day week in summer.',
    );
    expect(growth.description).not.toMatch(/onerror|pixel|ref=remoteok/);
    expect(qa.description).toBe('Test our mobile titles before release. Part-time, paid hourly. We’re a team of 12 in Lisbon.');
  });

  it('doubly encoded text is decoded once more: "&amp;#8217;" in a description, entities and mojibake in a title', async () => {
    const body = fixture();
    Object.assign(body[1], {
      position: 'R&amp;D Engineer â€“ Platform',
      company: 'Caf\u00c3\u00a9 Labs',
      description: '<p>We&amp;#8217;re hiring &amp;amp; growing</p>',
    });
    const [posting] = await postingsOf([body[0], body[1]]);
    expect(posting).toMatchObject({ title: 'R&D Engineer – Platform', company: 'Café Labs', description: 'We’re hiring & growing' });
  });

  it('dates come from epoch seconds, else from the ISO date', async () => {
    const body = fixture();
    delete body[2].epoch;
    body[3].epoch = 'soon';
    const postings = await postingsOf(body);
    expect(postings.map((p) => p.publishedAt?.toISOString())).toEqual([
      '2026-10-02T16:00:05.000Z',
      '2026-10-02T08:00:34.000Z',
      '2026-10-01T20:00:01.000Z',
      '2026-10-01T13:00:02.000Z',
      '2026-09-30T00:00:31.000Z',
    ]);
  });

  it('a bad optional field keeps its job', async () => {
    const body = fixture();
    Object.assign(body[1], { salary_min: '140000', salary_max: null, tags: 'rust', location: 12, company: false, url: 5 });
    const postings = await postingsOf(body);
    expect(postings).toHaveLength(5);
    expect(postings[0]).toMatchObject({
      title: 'Senior Rust Engineer',
      budget: null,
      skills: [],
      location: null,
      company: null,
      url: null,
    });
  });

  it('the legal notice is skipped wherever it appears, and the answer is read without it', async () => {
    const body = fixture();
    const [legal, ...jobs] = body;
    expect(await postingsOf([...jobs.slice(0, 2), legal, ...jobs.slice(2)])).toHaveLength(5);
    expect(await postingsOf(jobs)).toHaveLength(5);
  });

  it('any other element without an id or position refuses the whole answer, naming it', async () => {
    const noId = fixture();
    delete noId[3].id;
    await expect(read(noId)).rejects.toThrow(new FeedParseError(SOURCE, 'job 2: id is missing or of the wrong type'));
    const badTitle = fixture();
    badTitle[5].position = 42;
    await expect(read(badTitle)).rejects.toThrow(/^job 4: position is missing or not a string$/);
    await expect(read({ jobs: [] })).rejects.toThrow(/expected an array of jobs/);
  });

  it('honours the terms: a link back to Remote OK; no rate limit is published', () => {
    expect(remoteOkAdapter.attribution?.({} as never)).toEqual({ text: 'Jobs from Remote OK', url: 'https://remoteok.com' });
    expect(remoteOkAdapter.label({} as never)).toBe('Remote OK');
    expect(remoteOkAdapter.minIntervalMinutes).toBe(0);
    expect(remoteOkAdapter.params.parse({})).toEqual({ baseUrl: 'https://remoteok.com' });
  });
});
