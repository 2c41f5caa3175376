import { afterEach, describe, expect, it } from 'vitest';
import { SAMPLE_FEED_PATH, startFeedServer, type FeedServer } from '../../scripts/sample-feed/server';
import { LOCAL_UPWORK_CREDENTIALS } from '../../scripts/sample-feed/kinds/upwork';
import { SAMPLE_KINDS } from '../../scripts/sample-feed/sample-sources';
import { UPWORK_FAKE_GRAPHQL_PATH, UPWORK_FAKE_TOKEN_PATH } from '../../scripts/upwork-fake/upwork-fake';

/**
 * The demo replays the morning of 30 November 2026 (scripts/demo.ts hands the sample server that
 * clock): every posting any sample source serves must be dated before it, whatever today is, or the
 * replayed day's digest holds postings from the future.
 */
const DEMO_CLOCK = new Date('2026-11-30T06:00:00Z');
let server: FeedServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** Every timestamp a body states, ISO 8601 or RFC 822, as instants. */
function datesIn(body: string): Date[] {
  const iso = body.match(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})/g) ?? [];
  const rfc = body.match(/(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} \w{3} \d{4} \d{2}:\d{2}:\d{2} (?:GMT|[+-]\d{4})/g) ?? [];
  return [...iso, ...rfc].map((text) => new Date(text));
}

async function upworkSearch(url: string): Promise<string> {
  const token = await fetch(`${url}${UPWORK_FAKE_TOKEN_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: LOCAL_UPWORK_CREDENTIALS.clientId,
      client_secret: LOCAL_UPWORK_CREDENTIALS.clientSecret,
      refresh_token: LOCAL_UPWORK_CREDENTIALS.refreshToken,
    }).toString(),
  });
  const { access_token } = (await token.json()) as { access_token: string };
  const search = await fetch(`${url}${UPWORK_FAKE_GRAPHQL_PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'query { marketplaceJobPostingsSearch { edges { node { id } } } }' }),
  });
  expect(search.status).toBe(200);
  return search.text();
}

describe('the sample sources follow the clock they are given', () => {
  it('the Upwork search, answered by code, is dated by the server’s clock, not today’s', async () => {
    server = await startFeedServer({ now: () => DEMO_CLOCK });
    const dates = datesIn(await upworkSearch(server.url));
    expect(dates.length).toBeGreaterThan(0);
    for (const date of dates) expect(date.getTime()).toBeLessThanOrEqual(DEMO_CLOCK.getTime());
    // Fresh on that morning: the newest job minutes before it, not a month.
    expect(DEMO_CLOCK.getTime() - Math.max(...dates.map((d) => d.getTime()))).toBeLessThan(3_600_000);
  });

  it('no sample source serves a posting dated after the replayed morning', async () => {
    server = await startFeedServer({ now: () => DEMO_CLOCK });
    // What the server serves at every fixed path is what each kind builds for its clock.
    const paths = (await Promise.all(SAMPLE_KINDS.map(async (kind) => Object.keys(await kind.served(DEMO_CLOCK))))).flat();
    expect(paths.length).toBeGreaterThan(SAMPLE_KINDS.length - 2);
    const served = await Promise.all([SAMPLE_FEED_PATH, ...paths].map(async (path) => (await fetch(`${server!.url}${path}`)).text()));
    const bodies = [await upworkSearch(server.url), ...served];
    const late = bodies.flatMap(datesIn).filter((d) => d.getTime() > DEMO_CLOCK.getTime());
    expect(late.map((d) => d.toISOString())).toEqual([]);
  });
});
