import { readFileSync } from 'node:fs';
import { LOCAL_UPWORK_CREDENTIALS, upworkSearchAt } from '../../../scripts/sample-feed/kinds/upwork';
import { UPWORK_FAKE_GRAPHQL_PATH, UPWORK_FAKE_TOKEN_PATH } from '../../../scripts/upwork-fake/upwork-fake';
import { describeHostileAnswers, HUGE_STRING, SCRIPT_TITLE } from '../../support/hostile-sources';

const fixture = (name: string) => readFileSync(new URL(`../../../scripts/sample-feed/fixtures/upwork/${name}`, import.meta.url), 'utf8');
/** The harness's clock: the fixture's jobs moved to just before it, inside the retention window. */
const NOW = new Date('2026-11-30T06:00:00Z');

const search = (nodes: Record<string, unknown>[]) =>
  JSON.stringify({
    data: { marketplaceJobPostingsSearch: { totalCount: nodes.length, edges: nodes.map((node, i) => ({ cursor: String(i), node })) } },
  });

describeHostileAnswers({
  kind: 'upwork',
  entry: (origin) => ({
    kind: 'upwork',
    id: 'hostile',
    params: { query: 'react', baseUrl: origin, tokenUrl: `${origin}${UPWORK_FAKE_TOKEN_PATH}`, ...LOCAL_UPWORK_CREDENTIALS },
  }),
  path: UPWORK_FAKE_GRAPHQL_PATH,
  // Each case is a new source, so each first asks for its first token with its refreshToken param.
  serveValid: (server) =>
    server.setFeed(UPWORK_FAKE_TOKEN_PATH, { body: fixture('token-refresh.json'), contentType: 'application/json; charset=utf-8' }),
  bodies: {
    valid: upworkSearchAt(fixture('search.json'), NOW),
    // MarketplaceJobPostingSearchResult: id ID!, title String!, the rest typed as in the query's selection.
    wrongTypes: search([
      {
        id: 1841203379554062,
        title: ['Next.js developer'],
        description: 7,
        ciphertext: 8,
        createdDateTime: true,
        publishedDateTime: {},
        amount: '600',
        hourlyBudgetMin: 45,
        hourlyBudgetMax: [],
        skills: 'next.js',
        occupations: 'web',
        totalApplicants: 'many',
        preferredFreelancerLocation: 'Europe',
        preferredFreelancerLocationMandatory: 'no',
        client: 'acme',
      },
    ]),
    missingIds: search([{ title: 'React developer', description: 'No id', ciphertext: '~021' }]),
    hugeStrings: search([
      {
        id: '1841203379554062338',
        title: HUGE_STRING,
        description: HUGE_STRING,
        ciphertext: '~021841203379554062338',
        preferredFreelancerLocation: [HUGE_STRING],
        preferredFreelancerLocationMandatory: true,
        skills: [{ name: 'x', prettyName: HUGE_STRING }],
      },
    ]),
    scriptTitles: search([{ id: '1841203379554062339', title: SCRIPT_TITLE, description: 'x', ciphertext: '~021841203379554062339' }]),
  },
});
