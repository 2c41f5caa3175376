import { describe, expect, it } from 'vitest';
import { FeedFetchError, FeedParseError } from '../../../lib/feeds/feed-errors';
import { postingId } from '../../../lib/feeds/posting';
import { hnWhoIsHiringAdapter, pickThread } from '../../../lib/feeds/adapters/hn-whoishiring-adapter';
import { json, readKindFixture, readOnce } from './read-adapter';

const SOURCE = 'hn-test';
const OCTOBER = new Date('2026-10-15T00:00:00Z');
const search = () => JSON.parse(readKindFixture('hn-whoishiring', 'search-by-date.json'));
const thread = () => JSON.parse(readKindFixture('hn-whoishiring', 'item-49811201.json'));
const read = (input: { search?: unknown; thread?: unknown; now?: Date } = {}) =>
  readOnce(hnWhoIsHiringAdapter, {
    params: {},
    served: {
      '/api/v1/search_by_date': json(input.search ?? search()),
      '/api/v1/items/49811201': json(input.thread ?? thread()),
      '/api/v1/items/49522897': json({ ...thread(), id: 49522897, title: 'Ask HN: Who is hiring? (September 2026)', children: [] }),
    },
    now: input.now ?? OCTOBER,
    id: SOURCE,
  });
const postingsOf = async (input: Parameters<typeof read>[0] = {}) => {
  const result = await read(input);
  if (result.status !== 'ok') throw new Error('expected postings');
  return result.postings;
};

describe('hn-whoishiring adapter', () => {
  it('finds the month’s "Who is hiring?" thread, then reads its live top-level comments as postings', async () => {
    const result = await read();
    expect(result.requests).toEqual(['/api/v1/search_by_date', '/api/v1/items/49811201']);
    if (result.status !== 'ok') throw new Error('expected postings');
    // The nested reply (49812040) is not a posting, nor is the deleted comment (49813644).
    expect(result.postings.map((p) => p.guid)).toEqual(['49811377', '49811502', '49811733', '49813118', '49813402', '49813517']);
    expect(result.postings[0]).toEqual({
      id: postingId(SOURCE, '49811377'),
      source: SOURCE,
      guid: '49811377',
      title: 'Senior Backend Engineer',
      url: 'https://news.ycombinator.com/item?id=49811377',
      description:
        'Acme Robotics | Senior Backend Engineer | Berlin, Germany | REMOTE (EU) | €85k–€105k | Full-time We build fleet software for warehouse robots. Stack: Go, PostgreSQL, Kafka. Apply: https://acme-robotics.example/jobs/backend',
      budget: { amount: 85_000, maxAmount: 105_000, currency: 'EUR', kind: 'yearly' },
      skills: ['Full-time'],
      // created_at_i is seconds.
      publishedAt: new Date('2026-10-01T15:03:40Z'),
      company: 'Acme Robotics',
      location: 'Berlin, Germany · REMOTE (EU)',
      remote: true,
    });
  });

  it('reads company, role, place, arrangement and salary off each first line, entities decoded', async () => {
    const postings = await postingsOf();
    expect(postings.map((p) => [p.company, p.title, p.location, p.remote, p.budget])).toEqual([
      [
        'Acme Robotics',
        'Senior Backend Engineer',
        'Berlin, Germany · REMOTE (EU)',
        true,
        { amount: 85_000, maxAmount: 105_000, currency: 'EUR', kind: 'yearly' },
      ],
      [
        'Northwind Health',
        'Staff Frontend Engineer (React & TypeScript)',
        'New York, NY',
        false,
        { amount: 180_000, maxAmount: 220_000, currency: 'USD', kind: 'yearly' },
      ],
      ['Lumen Labs', 'Founding ML Engineer, Data Engineer', 'San Francisco or REMOTE (US)', true, null],
      ['Fieldnote', 'Contract iOS Developer (SwiftUI)', null, true, { amount: 90, maxAmount: 120, currency: 'USD', kind: 'hourly' }],
      [null, expect.stringMatching(/^Hiring at Quillcraft!/), null, null, null],
      [
        'Tidewater Energy',
        'Platform Engineer',
        'Oslo, Norway · Hybrid (2 days onsite)',
        false,
        { amount: 850_000, maxAmount: 1_000_000, currency: 'NOK', kind: 'yearly' },
      ],
    ]);
    expect(postings[1].description).toContain(
      'You\'ll lead the scheduling UI rewrite. Email jobs@northwind.example with "HN" in the subject.',
    );
    expect(postings[1].description).not.toMatch(/&#x27;|&quot;|<i>/);
  });

  it('a comment whose first line is prose is titled with the whole comment, as text, at most 300 characters', async () => {
    const postings = await postingsOf();
    expect(postings[4].title).toBe(
      "Hiring at Quillcraft! We're a small team building tools for literary translators, and we're looking for a product designer who loves typography. Part-time is fine. Email hello@quillcraft.example",
    );
    const long = thread();
    long.children[4].text = `<p>${'We are a lovely team looking for people. '.repeat(20)}</p><p>More.</p>`;
    const [, , , , prose] = await postingsOf({ thread: long });
    expect(prose.title.length).toBeLessThanOrEqual(300);
    expect(prose.title).toMatch(/^We are a lovely team.*…$/);
  });

  it('skips deleted, dead and empty comments', async () => {
    const body = thread();
    body.children[0].dead = true;
    body.children[1].deleted = true;
    body.children[2].text = '';
    body.children[3].text = null;
    expect((await postingsOf({ thread: body })).map((p) => p.guid)).toEqual(['49813402', '49813517']);
  });

  it('no thread for this month yet: last month’s thread is read', async () => {
    const result = await read({ now: new Date('2026-11-01T09:00:00Z') });
    expect(result.requests).toEqual(['/api/v1/search_by_date', '/api/v1/items/49811201']);
  });

  it('no thread for this month or the last: "no Who is hiring thread found", a wait rather than a broken answer', async () => {
    const error = await read({ now: new Date('2026-12-02T09:00:00Z') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeedFetchError);
    expect(error).toMatchObject({ message: 'no Who is hiring thread found', status: undefined });
    await expect(read({ search: { hits: [] } })).rejects.toThrow(/^no Who is hiring thread found$/);
  });

  it('picks the "Who is hiring?" thread of the month, never the hired or freelancer threads, across a new year', () => {
    const hit = (objectID: string, title: string, created_at_i = 0) => ({ objectID, title, created_at_i });
    const hits = [
      hit('3', 'Ask HN: Who wants to be hired? (January 2027)'),
      hit('2', 'Ask HN: Freelancer? Seeking freelancer? (January 2027)'),
      hit('1', 'Ask HN: Who is hiring? (December 2026)'),
      hit('0', 'Ask HN: Who is hiring? (November 2026)'),
    ];
    expect(pickThread(hits, new Date('2027-01-01T10:00:00Z'))).toBe('1');
    expect(pickThread([...hits, hit('4', 'Ask HN: Who is hiring? (January 2027)')], new Date('2027-01-01T18:00:00Z'))).toBe('4');
    expect(pickThread(hits, new Date('2026-11-20T00:00:00Z'))).toBe('0');
    expect(pickThread(hits, new Date('2027-02-01T00:00:00Z'))).toBeNull();
    // Posted twice (a repost): the newer one.
    expect(
      pickThread(
        [hit('5', 'Ask HN: Who is hiring? (December 2026)', 10), hit('6', 'Ask HN: Who is hiring? (December 2026)', 20)],
        new Date('2026-12-05T00:00:00Z'),
      ),
    ).toBe('6');
  });

  it('dates come from created_at_i in seconds, else from created_at', async () => {
    const body = thread();
    delete body.children[0].created_at_i;
    body.children[1].created_at_i = 'yesterday';
    const [first, second] = await postingsOf({ thread: body });
    expect(first.publishedAt).toEqual(new Date('2026-10-01T15:03:40Z'));
    expect(second.publishedAt).toEqual(new Date('2026-10-01T15:22:11Z'));
  });

  it('a comment with a wrong-typed id or text refuses the whole answer, naming it', async () => {
    const badId = thread();
    badId.children[2].id = '49811733';
    await expect(read({ thread: badId })).rejects.toThrow(new FeedParseError(SOURCE, 'comment 2: id is missing or not a number'));
    const badText = thread();
    badText.children[3].text = { html: 'x' };
    await expect(read({ thread: badText })).rejects.toThrow(/^comment 3: text is missing or not a string$/);
    await expect(read({ thread: { id: 49811201, children: 'none' } })).rejects.toThrow(/^thread: children is missing or not an array$/);
    await expect(read({ search: { hits: 'none' } })).rejects.toThrow(/^thread search: hits is missing or not an array$/);
  });

  it('asks Algolia by default, at 10,000 requests an hour no interval is needed', () => {
    expect(hnWhoIsHiringAdapter.params.parse({})).toEqual({ baseUrl: 'https://hn.algolia.com' });
    expect(hnWhoIsHiringAdapter.minIntervalMinutes).toBe(0);
    expect(hnWhoIsHiringAdapter.redirects).toBe('same-host');
    expect(hnWhoIsHiringAdapter.label({} as never)).toBe('Hacker News · Who is hiring?');
  });
});
