import { readFile } from 'node:fs/promises';
import { createUpworkFake, UPWORK_FAKE_TOKEN_PATH } from '../../upwork-fake/upwork-fake';
import type { SampleKind } from './sample-kind';

/**
 * The local stack's Upwork app: what the fake expects and what the sample upwork entry's params
 * give Scout. Published here, so worthless anywhere else.
 */
export const LOCAL_UPWORK_CREDENTIALS = {
  clientId: 'local-upwork-client-id',
  clientSecret: 'local-upwork-client-secret-not-for-production',
  refreshToken: 'local-upwork-refresh-token-seed',
} as const;

/** How long before "now" the fixture's newest job is dated, once shifted. */
const NEWEST_JOB_AGE_MS = 10 * 60_000;

export function readUpworkSearchFixture(): Promise<string> {
  return readFile(new URL('../fixtures/upwork/search.json', import.meta.url), 'utf8');
}

/**
 * The fixture's jobs moved in time so the newest was published shortly before `now`, the gaps
 * between them kept: the fixture is dated October 2026, past any retention window by the time a
 * demo runs.
 */
export function upworkSearchAt(fixture: string, now: Date): string {
  const answer = JSON.parse(fixture) as { data: { marketplaceJobPostingsSearch: { edges: { node: Record<string, unknown> }[] } } };
  const nodes = answer.data.marketplaceJobPostingsSearch.edges.map((edge) => edge.node);
  const newest = Math.max(...nodes.map((node) => Date.parse(String(node.publishedDateTime))));
  const shift = now.getTime() - NEWEST_JOB_AGE_MS - newest;
  for (const node of nodes)
    for (const field of ['createdDateTime', 'publishedDateTime'])
      if (typeof node[field] === 'string') node[field] = new Date(Date.parse(node[field]) + shift).toISOString();
  return JSON.stringify(answer, null, 2);
}

/**
 * Upwork on the local stack: the fake token endpoint and GraphQL search (scripts/upwork-fake), a
 * fresh one per server, answering the fixture dated to the server's clock at its start (the demo's
 * replayed morning, or today).
 */
export const upworkSampleKind: SampleKind = {
  kind: 'upwork',
  // Nothing is a fixed answer: the token endpoint rotates, and the search wants a live bearer.
  served: async () => ({}),
  async routes(now = new Date()) {
    const searchAnswer = upworkSearchAt(await readUpworkSearchFixture(), now);
    return createUpworkFake({
      ...LOCAL_UPWORK_CREDENTIALS,
      searchAnswer,
    }).routes;
  },
  entry: (origin) => ({
    kind: 'upwork',
    id: 'upwork-sample',
    // The fake knows these (and only these); the refresh token seeds the first token.
    params: { query: 'developer', baseUrl: origin, tokenUrl: `${origin}${UPWORK_FAKE_TOKEN_PATH}`, ...LOCAL_UPWORK_CREDENTIALS },
  }),
};
