import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  parseUpworkSearch,
  upworkAdapter,
  upworkBudget,
  UPWORK_SEARCH_QUERY,
  type UpworkParams,
} from '../../../lib/feeds/adapters/upwork-adapter';
import { FeedFetchError, FeedParseError } from '../../../lib/feeds/feed-errors';
import { postingId } from '../../../lib/feeds/posting';
import { parseSourceList, SourceListError } from '../../../lib/feeds/source-list';
import { SourceSecret } from '../../../lib/feeds/source-secret';
import { upworkSearchAt } from '../../../scripts/sample-feed/kinds/upwork';

const fixture = (name: string) => readFileSync(new URL(`../../../scripts/sample-feed/fixtures/upwork/${name}`, import.meta.url), 'utf8');
const SEARCH = fixture('search.json');
const SOURCE = 'upwork-test';

type Node = Record<string, unknown>;
/** The fixture's answer with its jobs replaced. */
const answerWith = (nodes: Node[]) =>
  JSON.stringify({
    data: { marketplaceJobPostingsSearch: { totalCount: nodes.length, edges: nodes.map((node) => ({ cursor: 'x', node })) } },
  });
const fixtureNodes = (): Node[] =>
  (
    JSON.parse(SEARCH) as { data: { marketplaceJobPostingsSearch: { edges: { node: Node }[] } } }
  ).data.marketplaceJobPostingsSearch.edges.map((edge) => edge.node);
const parseError = (body: string) => {
  try {
    parseUpworkSearch(SOURCE, body);
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the answer to be refused');
};

describe('upwork: the search answer as Postings', () => {
  it('maps every fixture job exactly: ids from the job id, the job page from ciphertext, plain-text descriptions, skills and category as tags', () => {
    const postings = parseUpworkSearch(SOURCE, SEARCH);
    expect(postings).toHaveLength(5);
    expect(postings[0]).toEqual({
      id: postingId(SOURCE, '1841203379554062337'),
      source: SOURCE,
      guid: '1841203379554062337',
      title: 'Next.js developer to finish a booking dashboard',
      url: 'https://www.upwork.com/jobs/~021841203379554062337',
      description:
        'We have a half-built booking dashboard in Next.js 15 + Firestore. Need someone to finish the calendar view and the Stripe checkout. Must have shipped at least one Next.js app to production.',
      budget: { amount: 600, currency: 'USD', kind: 'fixed' },
      skills: ['Next.js', 'Firebase Cloud Firestore', 'Stripe', 'Web, Mobile & Software Dev'],
      publishedAt: new Date('2026-10-02T08:44:03.000Z'),
      company: null,
      // No freelancer location asked: where the client is, said as the client's.
      location: 'Client in Austin, United States',
      remote: true,
    });
    expect(postings[1]).toMatchObject({
      id: postingId(SOURCE, '1841198822031945729'),
      title: 'Senior Python engineer for data pipeline (ongoing, hourly)',
      budget: { amount: 45, maxAmount: 70, currency: 'USD', kind: 'hourly' },
      skills: ['Python', 'Apache Airflow', 'dbt', 'Data Science & Analytics'],
      location: 'Europe',
      remote: true,
    });
    expect(postings[3]).toMatchObject({
      title: 'React Native bug fixes (iOS build failing)',
      budget: null,
      skills: ['React Native'],
      location: null,
    });
    expect(postings[2].location).toBe('Client in Manchester, United Kingdom');
    expect(postings[4]).toMatchObject({
      budget: { amount: 1200, currency: 'USD', kind: 'fixed' },
      location: 'United States, Canada (preferred)',
    });
  });

  it('a plain-text description with <section>, <script> and & keeps them as the words they are, never as markup', () => {
    const posting = parseUpworkSearch(SOURCE, SEARCH)[2];
    expect(posting.title).toBe('Landing page in plain HTML <section> blocks & Tailwind');
    expect(posting.description).toBe(
      "Convert our Figma to a static page. Use <section> per block, no frameworks. Deliverables: index.html + tailwind.config.js <script>alert('this is text, not markup')</script> & thanks!",
    );
  });

  it('budgets: an hourly range is hourly, a positive amount is fixed, "0.0" with no range is no budget, and a currency that is not ISO 4217 is USD', () => {
    const money = (rawValue: string, currency = 'USD') => ({ rawValue, currency });
    expect(upworkBudget({ amount: money('0.0'), hourlyBudgetMin: money('45.0'), hourlyBudgetMax: money('70.0') })).toEqual({
      amount: 45,
      maxAmount: 70,
      currency: 'USD',
      kind: 'hourly',
    });
    expect(upworkBudget({ amount: money('0.0'), hourlyBudgetMin: null, hourlyBudgetMax: money('30.0', 'EUR') })).toEqual({
      amount: 30,
      currency: 'EUR',
      kind: 'hourly',
    });
    expect(upworkBudget({ amount: money('600.00'), hourlyBudgetMin: null, hourlyBudgetMax: null })).toEqual({
      amount: 600,
      currency: 'USD',
      kind: 'fixed',
    });
    expect(upworkBudget({ amount: money('0.0'), hourlyBudgetMin: null, hourlyBudgetMax: null })).toBeNull();
    expect(upworkBudget({ amount: money('250', 'dollars'), hourlyBudgetMin: null, hourlyBudgetMax: null })).toEqual({
      amount: 250,
      currency: 'USD',
      kind: 'fixed',
    });
    expect(upworkBudget({ amount: money('$250'), hourlyBudgetMin: null, hourlyBudgetMax: null })).toBeNull();
  });

  it('a job with bad optional fields keeps the job: each wrong-typed optional field is treated as absent', () => {
    const [good] = fixtureNodes();
    const postings = parseUpworkSearch(
      SOURCE,
      answerWith([
        {
          ...good,
          description: 42,
          ciphertext: { not: 'a string' },
          publishedDateTime: 17,
          amount: 'six hundred',
          skills: 'next.js',
          occupations: [],
          preferredFreelancerLocation: 'Europe',
          preferredFreelancerLocationMandatory: 'yes',
          client: { location: 'Austin' },
        },
      ]),
    );
    expect(postings).toHaveLength(1);
    expect(postings[0]).toMatchObject({
      id: postingId(SOURCE, String(good.id)),
      title: good.title,
      description: '',
      url: null,
      budget: null,
      skills: [],
      location: null,
      // publishedDateTime unreadable: createdDateTime, the documented fallback.
      publishedAt: new Date(String(good.createdDateTime)),
    });
  });

  it('a job without its id or title refuses the whole answer, naming the job and field without quoting the body', () => {
    const [first, second] = fixtureNodes();
    const withoutId = parseError(answerWith([first, { ...second, id: undefined }]));
    expect(withoutId).toBeInstanceOf(FeedParseError);
    expect(withoutId.message).toBe('edges[1].node.id is missing or of the wrong type');
    const numericTitle = parseError(answerWith([{ ...first, title: 7 }]));
    expect(numericTitle.message).toBe('edges[0].node.title is missing or of the wrong type');
    expect(numericTitle.message).not.toContain(String(first.description).slice(0, 20));
  });

  it('a top-level shape that is not the search answer is a parse error, an empty search is no postings', () => {
    expect(parseError(JSON.stringify({ data: { somethingElse: {} } }))).toBeInstanceOf(FeedParseError);
    expect(parseError(JSON.stringify([1, 2, 3]))).toBeInstanceOf(FeedParseError);
    expect(parseError(JSON.stringify({ data: null }))).toBeInstanceOf(FeedParseError);
    expect(parseError(JSON.stringify({ data: { marketplaceJobPostingsSearch: { edges: 'none' } } }))).toBeInstanceOf(FeedParseError);
    expect(parseUpworkSearch(SOURCE, JSON.stringify({ data: { marketplaceJobPostingsSearch: { totalCount: 0, edges: [] } } }))).toEqual([]);
    expect(parseUpworkSearch(SOURCE, JSON.stringify({ data: { marketplaceJobPostingsSearch: { totalCount: 0, edges: null } } }))).toEqual(
      [],
    );
  });

  it('GraphQL errors inside a 200 refuse the answer, even beside partial data, repeating only a short code', () => {
    const error = parseError(
      JSON.stringify({
        data: JSON.parse(SEARCH).data,
        errors: [{ message: 'The client secret hunter2 is not authorized for scope X', extensions: { code: 'FORBIDDEN' } }],
      }),
    );
    expect(error).toBeInstanceOf(FeedFetchError);
    expect(error.message).toBe('Upwork GraphQL error FORBIDDEN');
    expect(parseError(JSON.stringify({ data: null, errors: [{ message: 'boom <script>' }] })).message).toBe('Upwork GraphQL error');
  });

  it('the query sent is the fixture query, so the fixture has the shape of a real answer to it', () => {
    expect(UPWORK_SEARCH_QUERY.trim()).toBe(fixture('search-query.graphql').trim());
  });

  it('the sample server dates the fixture so its newest job is ten minutes old, the gaps kept', () => {
    const now = new Date('2026-12-02T12:00:00Z');
    const postings = parseUpworkSearch(SOURCE, upworkSearchAt(SEARCH, now));
    expect(postings[0].publishedAt).toEqual(new Date('2026-12-02T11:50:00Z'));
    const gap = Date.parse('2026-10-02T08:44:03.000Z') - Date.parse('2026-10-02T07:16:02.000Z');
    expect(postings[0].publishedAt!.getTime() - postings[1].publishedAt!.getTime()).toBe(gap);
  });
});

describe('upwork: the SOURCES entry', () => {
  const base = { FEED_URLS: undefined };
  const credentials = { clientId: 'id', clientSecret: 'secret', refreshToken: 'refresh' };
  const entry = (params: Record<string, unknown>) => JSON.stringify([{ kind: 'upwork', id: 'upwork-jobs', params }]);

  it("defaults to Upwork's own GraphQL origin and token endpoint, and is labelled with its search", () => {
    const [source] = parseSourceList({ ...base, SOURCES: entry({ query: 'next.js', ...credentials }) });
    expect(source.params).toEqual({
      query: 'next.js',
      baseUrl: 'https://api.upwork.com',
      tokenUrl: 'https://www.upwork.com/api/v3/oauth2/token',
      clientId: expect.any(SourceSecret),
      clientSecret: expect.any(SourceSecret),
      refreshToken: expect.any(SourceSecret),
    });
    const params = source.params as UpworkParams;
    expect([params.clientId.reveal(), params.clientSecret.reveal(), params.refreshToken.reveal()]).toEqual(['id', 'secret', 'refresh']);
    expect(upworkAdapter.label(source as never)).toBe('Upwork · next.js');
    expect(source.minIntervalMinutes).toBe(0);
  });

  it('an upwork source without all three OAuth2 credentials in its params is refused, naming the missing ones and no value', () => {
    const error = (() => {
      try {
        parseSourceList({ ...base, SOURCES: entry({ query: 'next.js', clientSecret: 'hunter2-secret' }) });
      } catch (e) {
        return e as SourceListError;
      }
    })();
    expect(error).toBeInstanceOf(SourceListError);
    expect(error!.problems).toEqual([
      `SOURCES[0] ("upwork-jobs") params.clientId is required (the Upwork API key's client id, README "Sources")`,
      'SOURCES[0] ("upwork-jobs") params.refreshToken is required (a refresh token from one authorization-code grant, README "Sources")',
    ]);
    expect(error!.message).not.toContain('hunter2');
  });

  it('the token and the secret never travel over plain http to a public host; unknown params are refused', () => {
    const withCredentials = (params: Record<string, unknown>) => entry({ ...params, ...credentials });
    expect(() => parseSourceList({ ...base, SOURCES: withCredentials({ query: 'x', tokenUrl: 'http://upwork.example/token' }) })).toThrow(
      /params.tokenUrl must be https/,
    );
    expect(() => parseSourceList({ ...base, SOURCES: withCredentials({ query: 'x', baseUrl: 'http://api.example' }) })).toThrow(
      /params.baseUrl must be https/,
    );
    expect(() => parseSourceList({ ...base, SOURCES: withCredentials({ query: 'x', baseUrl: 'http://127.0.0.1:3030' }) })).not.toThrow();
    expect(() => parseSourceList({ ...base, SOURCES: withCredentials({ query: 'x', limit: 5 }) })).toThrow(/params/);
    expect(() => parseSourceList({ ...base, SOURCES: withCredentials({ query: '  ' }) })).toThrow(/params.query must not be empty/);
  });
});
