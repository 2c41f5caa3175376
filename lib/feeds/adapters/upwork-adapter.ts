import { z } from 'zod';
import { FeedFetchError, FeedParseError } from '../feed-errors';
import { statedPay } from '../../pay/parse-pay';
import type { Budget } from '../posting';
import type { SourceAdapter } from '../source-adapter';
import type { SourceAnswer } from '../source-http';
import { SourceSecret } from '../source-secret';
import { upworkAccessToken } from '../upwork-token';
import { buildPostings, parseJsonBody, type RawJob } from './build-posting';

export const UPWORK_GRAPHQL_PATH = '/graphql';
export const UPWORK_TOKEN_PATH = '/api/v3/oauth2/token';
/** Upwork's own client libraries: python-upwork-oauth2 (GQL_EPOINT) and node-upwork-oauth2 (tokenHost, tokenPath). */
const UPWORK_GRAPHQL_ORIGIN = 'https://api.upwork.com';
const UPWORK_TOKEN_URL = `https://www.upwork.com${UPWORK_TOKEN_PATH}`;
/** Where a job's public page is: `ciphertext` is the job's "encrypted identifier", the `~02…` of its page (inferred, see README). */
const UPWORK_JOB_PAGE = 'https://www.upwork.com/jobs/';
/** One page of the newest jobs per run: sorted by recency, a 15-minute schedule never has more new ones. */
const PAGE_SIZE = 50;
const MAX_LABEL_QUERY = 60;

/** One of the app's OAuth2 credentials: required, and held as a SourceSecret from the moment it is parsed. */
const credential = (what: string) =>
  z
    .string({ error: `is required (${what}, README "Sources")` })
    .regex(/^\S+$/, 'must not contain spaces')
    .transform((value) => new SourceSecret(value));

// The bearer token and the client secret travel to these URLs: https, except on the operator's own machine.
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
const secretBearingUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .refine((url) => new URL(url).protocol === 'https:' || LOOPBACK_HOSTS.has(new URL(url).hostname), 'must be https (http only on loopback)')
  .transform((url) => url.replace(/\/+$/, ''));

export const upworkParams = z
  .object({
    /** `searchExpression_eq`: the search terms, in what Upwork calls "partial Lucene syntax". */
    query: z.string().trim().min(1, 'must not be empty').max(500, 'must be at most 500 characters'),
    /** `categoryIds_any`: Upwork category ids (long numbers, as strings) the jobs must be in. */
    categoryIds: z
      .array(z.string().regex(/^\d{1,30}$/, 'must be an Upwork category id (digits)'))
      .min(1)
      .max(20)
      .optional(),
    /** The GraphQL origin: the query is POSTed to `{baseUrl}/graphql`. */
    baseUrl: secretBearingUrl.default(UPWORK_GRAPHQL_ORIGIN),
    /** The OAuth2 token endpoint (the refresh token grant). */
    tokenUrl: secretBearingUrl.default(UPWORK_TOKEN_URL),
    /** Upwork's OAuth2 client: an API key approved for the job search's scopes. */
    clientId: credential("the Upwork API key's client id"),
    /** Also the key the stored tokens are sealed under: a new one needs a new refreshToken too. */
    clientSecret: credential("the Upwork API key's client secret"),
    /** Seeds the first access token only: Upwork rotates it, and the newest is kept sealed in sourceTokens/. */
    refreshToken: credential('a refresh token from one authorization-code grant'),
  })
  .strict();

export type UpworkParams = z.output<typeof upworkParams>;

/**
 * The query Scout sends. A GraphQL answer holds exactly the fields selected, so this also fixes the
 * answer's shape (scripts/sample-feed/fixtures/upwork/search-query.graphql is this text). No enum
 * field is selected: their values are not in the public reference Scout could read.
 */
export const UPWORK_SEARCH_QUERY = `query ScoutJobSearch($filter: MarketplaceJobPostingsSearchFilter, $sort: [MarketplaceJobPostingSearchSortAttribute]) {
  marketplaceJobPostingsSearch(marketPlaceJobFilter: $filter, searchType: USER_JOBS_SEARCH, sortAttributes: $sort) {
    totalCount
    edges {
      cursor
      node {
        id
        title
        description
        ciphertext
        createdDateTime
        publishedDateTime
        amount {
          rawValue
          currency
          displayValue
        }
        hourlyBudgetMin {
          rawValue
          currency
          displayValue
        }
        hourlyBudgetMax {
          rawValue
          currency
          displayValue
        }
        skills {
          name
          prettyName
        }
        occupations {
          category {
            id
            prefLabel
          }
        }
        totalApplicants
        preferredFreelancerLocation
        preferredFreelancerLocationMandatory
        client {
          totalHires
          totalPostedJobs
          totalFeedback
          location {
            city
            country
          }
        }
      }
    }
    pageInfo {
      endCursor
      hasNextPage
    }
  }
}
`;

/**
 * Upwork's marketplace job search, through its GraphQL API with an OAuth2 bearer token. Each run
 * takes a valid access token from sourceTokens/{source} (refreshed by one run at a time, see
 * upwork-token.ts), POSTs the search sorted by recency, and maps one page of jobs. A 401 means the
 * token died early: one refresh, one retry. GraphQL is a POST, so there is no conditional request.
 */
export const upworkAdapter: SourceAdapter<UpworkParams> = {
  kind: 'upwork',
  documentation:
    'https://www.upwork.com/developer/documentation/graphql/api/docs/index.html (marketplaceJobPostingsSearch; OAuth2 refresh grant at https://www.upwork.com/api/v3/oauth2/token, RFC 6749 §6)',
  params: upworkParams,
  redirects: 'same-host',
  // Upwork documents no minimum interval; third-party notes speak of ~300 requests a minute, far above one search a run.
  minIntervalMinutes: 0,
  label: (source) => {
    const query = source.params.query;
    return `Upwork · ${query.length > MAX_LABEL_QUERY ? `${query.slice(0, MAX_LABEL_QUERY - 1)}…` : query}`;
  },
  siteName: () => 'Upwork',
  async read({ source, http, db }) {
    const credentials = {
      clientId: source.params.clientId.reveal(),
      clientSecret: source.params.clientSecret.reveal(),
      refreshToken: source.params.refreshToken.reveal(),
    };
    const token = (replacing?: number) =>
      upworkAccessToken({
        db,
        source: source.id,
        credentials,
        tokenUrl: source.params.tokenUrl,
        http,
        // Past one token request (its timeout) with room to store the answer.
        leaseMs: 2 * source.timeoutMs + 5_000,
        waitMs: Math.min(source.timeoutMs + 2_000, 15_000),
        replacing,
      });
    const search = (accessToken: string) =>
      http.request(`${source.params.baseUrl}${UPWORK_GRAPHQL_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
        body: JSON.stringify({ query: UPWORK_SEARCH_QUERY, variables: searchVariables(source.params) }),
      });

    let access = await token();
    let answer: SourceAnswer;
    try {
      answer = await search(access.value);
    } catch (error) {
      if (!(error instanceof FeedFetchError && error.status === 401)) throw error;
      // A token can be revoked before it expires: one refresh and one retry, then the 401 stands.
      access = await token(access.version);
      answer = await search(access.value);
    }
    if (answer.status === 'not-modified') return answer;
    return { status: 'ok', postings: parseUpworkSearch(source.id, answer.text), validators: null };
  },
};

function searchVariables(params: UpworkParams) {
  return {
    filter: {
      searchExpression_eq: params.query,
      ...(params.categoryIds ? { categoryIds_any: params.categoryIds } : {}),
      // `after` as an offset string, "0" for the first page: a `pagination_eq` without it (or with
      // "") is what one public client saw answered with 500 "Exception occurred"; the clients that
      // send it this way report no failure (docs/sources.md, the upwork section).
      pagination_eq: { first: PAGE_SIZE, after: '0' },
    },
    sort: [{ field: 'RECENCY' }],
  };
}

// --- the answer ---

// Optional fields: a wrong type is the field missing, never the job refused.
const optional = <T extends z.ZodType>(schema: T) => schema.nullish().catch(null);

/** `Money`: "Float point as a string" and an ISO 4217 code. */
const money = optional(z.object({ rawValue: z.string(), currency: optional(z.string()) }));

const jobNode = z.object({
  // `ID!` and `String!`: a job without them is not a job of the documented shape.
  id: z.string().min(1),
  title: z.string(),
  description: optional(z.string()),
  ciphertext: optional(z.string()),
  createdDateTime: optional(z.string()),
  publishedDateTime: optional(z.string()),
  amount: money,
  hourlyBudgetMin: money,
  hourlyBudgetMax: money,
  skills: optional(z.array(optional(z.object({ name: optional(z.string()), prettyName: optional(z.string()) })))),
  occupations: optional(z.object({ category: optional(z.object({ prefLabel: optional(z.string()) })) })),
  preferredFreelancerLocation: optional(z.array(optional(z.string()))),
  preferredFreelancerLocationMandatory: optional(z.boolean()),
  client: optional(z.object({ location: optional(z.object({ city: optional(z.string()), country: optional(z.string()) })) })),
});

type JobNode = z.output<typeof jobNode>;

const searchAnswer = z.object({
  data: z
    .object({
      marketplaceJobPostingsSearch: z.object({
        // The connection's `edges` may be absent (the reference marks it optional): no jobs.
        edges: z.array(z.unknown()).nullish(),
      }),
    })
    .nullish(),
  errors: z.array(z.unknown()).nullish(),
});

const graphqlError = z.object({ extensions: z.object({ code: z.string().regex(/^[A-Za-z_]{1,40}$/) }) });

/**
 * The search answer → Postings, all or nothing: a top-level shape that is not the query's, or any
 * job without its id or title, refuses the whole answer. GraphQL reports failures inside a 200
 * (`errors`); any error refuses the answer too, even next to partial data.
 */
export function parseUpworkSearch(source: string, text: string) {
  const parsed = searchAnswer.safeParse(parseJsonBody(source, text));
  if (!parsed.success) throw new FeedParseError(source, `not an Upwork search answer (${fieldOf(parsed.error)})`);
  const { data, errors } = parsed.data;
  if (errors && errors.length > 0) {
    // Only a short code is repeated: a message may echo the query, and lastError is shown outside.
    const code = graphqlError.safeParse(errors[0]).data?.extensions.code;
    throw new FeedFetchError({ source, status: 200, message: `Upwork GraphQL error${code ? ` ${code}` : ''}` });
  }
  if (!data) throw new FeedParseError(source, 'not an Upwork search answer (data is missing)');
  const raws = (data.marketplaceJobPostingsSearch.edges ?? []).map((edge, i) => {
    const node = z.object({ node: jobNode }).safeParse(edge);
    if (!node.success) throw new FeedParseError(source, `edges[${i}].${fieldOf(node.error)} is missing or of the wrong type`);
    return toRawJob(node.data.node);
  });
  return buildPostings(source, raws);
}

function toRawJob(node: JobNode): RawJob {
  return {
    providerId: node.id,
    title: node.title,
    // Plain text with newlines: a `<section>` in it is the client's words, shown as text.
    description: node.description ? { value: node.description, html: false } : null,
    url: node.ciphertext && /^~?[0-9A-Za-z]{1,64}$/.test(node.ciphertext) ? `${UPWORK_JOB_PAGE}${node.ciphertext}` : null,
    // The client's name is hidden: `companyName` is documented as "Not supported anymore".
    company: null,
    location: freelancerLocation(node),
    // A freelance marketplace: the work is done wherever the freelancer is.
    remote: true,
    budget: upworkBudget(node),
    publishedAt: node.publishedDateTime ?? node.createdDateTime ?? null,
    tags: [
      ...(node.skills ?? []).map((skill) => skill?.prettyName ?? skill?.name).filter((tag): tag is string => !!tag),
      ...(node.occupations?.category?.prefLabel ? [node.occupations.category.prefLabel] : []),
    ],
  };
}

/**
 * Where the freelancer must (or, not mandatory, should) be: Upwork's `preferredFreelancerLocation`.
 * Without one, where the client is — said as the client's, since the work itself is done anywhere:
 * it tells a freelancer the client's time zone and market.
 */
function freelancerLocation(node: JobNode): string | null {
  const places = (node.preferredFreelancerLocation ?? []).filter((place): place is string => !!place?.trim());
  if (places.length > 0) return node.preferredFreelancerLocationMandatory ? places.join(', ') : `${places.join(', ')} (preferred)`;
  const client = [node.client?.location?.city, node.client?.location?.country].filter((part): part is string => !!part?.trim());
  return client.length > 0 ? `Client in ${client.join(', ')}` : null;
}

/**
 * Hourly when an hourly range is given, else fixed when `amount` is above zero, else none. Which
 * fields are filled is how the kind is read: `contractTerms.contractType` would say it directly,
 * but its enum values are not in the reference Scout could read.
 */
export function upworkBudget(node: Pick<JobNode, 'amount' | 'hourlyBudgetMin' | 'hourlyBudgetMax'>): Budget | null {
  const min = moneyAmount(node.hourlyBudgetMin);
  const max = moneyAmount(node.hourlyBudgetMax);
  const currency = (min ?? max)?.currency;
  const hourly = statedPay({ min: min?.amount, max: max?.amount, currency, period: 'hourly' });
  if (hourly) return hourly;
  const fixed = moneyAmount(node.amount);
  return fixed ? statedPay({ min: fixed.amount, max: null, currency: fixed.currency, period: 'fixed' }) : null;
}

/** A positive decimal; the currency as sent when it is an ISO 4217 code, else USD (Upwork prices its marketplace in USD). */
function moneyAmount(value: z.output<typeof money>): { amount: number; currency: string } | null {
  if (!value || !/^\d{1,12}(\.\d{1,4})?$/.test(value.rawValue.trim())) return null;
  const amount = Number(value.rawValue);
  if (!(amount > 0)) return null;
  const currency = value.currency && /^[A-Z]{3}$/.test(value.currency) ? value.currency : 'USD';
  return { amount, currency };
}

function fieldOf(error: z.ZodError): string {
  return error.issues[0]?.path.map(String).join('.') || '(root)';
}
