import { readFileSync } from 'node:fs';
import { Timestamp } from 'firebase-admin/firestore';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refreshFeeds } from '../../lib/feeds/refresh-feeds';
import { parseSourceList } from '../../lib/feeds/source-list';
import { openStoredToken, TOKEN_REFRESH_IN_PROGRESS_MESSAGE, TOKEN_REJECTED_MESSAGE } from '../../lib/feeds/upwork-token';
import { LOCAL_UPWORK_CREDENTIALS, upworkSearchAt } from '../../scripts/sample-feed/kinds/upwork';
import { createUpworkFake, UPWORK_FAKE_TOKEN_PATH, type UpworkFake, type UpworkFakeOptions } from '../../scripts/upwork-fake/upwork-fake';
import { createHarness, type Harness } from '../support/harness';

const NOW = new Date('2026-11-30T06:00:00Z');
const SOURCE = 'upwork-jobs';
const SEARCH = upworkSearchAt(readFileSync(new URL('../../scripts/sample-feed/fixtures/upwork/search.json', import.meta.url), 'utf8'), NOW);
const { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, refreshToken: REFRESH_TOKEN } = LOCAL_UPWORK_CREDENTIALS;

let h: Harness;
let fake: UpworkFake;
let runs = 0;

const installFake = (options: Partial<UpworkFakeOptions> = {}) => {
  fake = createUpworkFake({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    refreshToken: REFRESH_TOKEN,
    searchAnswer: SEARCH,
    ...options,
  });
  fake.install(h.feeds);
  return fake;
};

beforeEach(async () => {
  h = await createHarness();
  installFake();
});
afterEach(async () => h.close());

/** One refreshFeeds over the harness's feed and one upwork source, as a cycle would call it. */
async function run(options: { credentials?: Partial<Record<keyof typeof LOCAL_UPWORK_CREDENTIALS, string>>; timeoutMs?: number } = {}) {
  const config = {
    ...h.config,
    SOURCES: JSON.stringify([
      {
        kind: 'upwork',
        id: SOURCE,
        params: {
          query: 'next.js',
          baseUrl: h.feeds.url,
          tokenUrl: `${h.feeds.url}${UPWORK_FAKE_TOKEN_PATH}`,
          ...LOCAL_UPWORK_CREDENTIALS,
          ...options.credentials,
        },
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      },
    ]),
  };
  const result = await refreshFeeds(h.deps, { sources: parseSourceList(config), now: NOW, runId: `run-${++runs}`, config, dryRun: false });
  return result.feeds.find((feed) => feed.source === SOURCE)!;
}

const tokenDoc = async () => (await h.db.collection('sourceTokens').doc(SOURCE).get()).data();
const feedState = async () => (await h.db.collection('feeds').doc(SOURCE).get()).data();
const storedJobs = async () => (await h.db.collection('jobs').where('source', '==', SOURCE).get()).size;
/** The stored token as it stands, and what the token endpoint now accepts, expired on both sides. */
const expireStoredToken = async () => {
  await h.db
    .collection('sourceTokens')
    .doc(SOURCE)
    .update({ expiresAt: Timestamp.fromMillis(Date.now() - 60_000) });
  fake.expireAccessTokens();
};

describe('upwork token: one refresh for every run', () => {
  it('the first run takes its first token from REFRESH_TOKEN, stores the rotated pair sealed, and reads the search', async () => {
    const report = await run();
    expect(report).toMatchObject({ status: 'ok', postings: 5, new: 5 });
    expect(fake.tokenRequests()).toBe(1);
    expect(fake.searches()).toEqual([expect.objectContaining({ authorized: true })]);
    const doc = await tokenDoc();
    expect(openStoredToken(doc, SOURCE, CLIENT_SECRET)?.refreshToken).toBe(fake.currentRefreshToken());
    expect(doc).toMatchObject({
      provider: 'upwork',
      version: 1,
      leaseOwner: null,
      leaseUntil: null,
      refreshRejected: false,
      lastError: null,
    });

    // The next run uses the stored token: no token request.
    expect(await run()).toMatchObject({ status: 'ok', new: 0 });
    expect(fake.tokenRequests()).toBe(1);
  });

  it('the search carries the documented filter: the query, one page of 50, newest first', async () => {
    await run();
    expect(fake.searches()[0].variables).toEqual({
      filter: { searchExpression_eq: 'next.js', pagination_eq: { first: 50, after: '0' } },
      sort: [{ field: 'RECENCY' }],
    });
  });

  it('8 concurrent runs with an expired token make exactly ONE token request and all succeed (a naive refresh would make 8 requests and get 7 invalid_grant)', async () => {
    await run();
    await expireStoredToken();
    const before = fake.tokenRequests();

    const reports = await Promise.all(Array.from({ length: 8 }, () => run()));

    expect(reports.map((report) => report.status)).toEqual(Array(8).fill('ok'));
    expect(fake.tokenRequests() - before).toBe(1);
    expect(fake.invalidGrants()).toBe(0);
    const doc = await tokenDoc();
    expect(doc?.version).toBe(2);
    // The rotated refresh token is the one kept: the only one Upwork still accepts.
    expect(openStoredToken(doc, SOURCE, CLIENT_SECRET)?.refreshToken).toBe(fake.currentRefreshToken());
    expect(
      fake
        .searches()
        .slice(-8)
        .every((search) => search.authorized),
    ).toBe(true);
  });

  it('the fake is as strict as the naive case says: 8 refreshes with one refresh token get 1 answer and 7 invalid_grant', async () => {
    const refresh = () =>
      fetch(`${h.feeds.url}${UPWORK_FAKE_TOKEN_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: REFRESH_TOKEN,
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
        }),
      }).then((response) => response.status);
    const statuses = await Promise.all(Array.from({ length: 8 }, refresh));
    expect(statuses.sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400]);
    expect(fake.invalidGrants()).toBe(7);
  });

  it('a 401 mid-run (a token revoked before it expired) means one refresh and one retry', async () => {
    await run();
    fake.expireAccessTokens();
    const before = fake.tokenRequests();

    const report = await run();

    expect(report).toMatchObject({ status: 'ok', postings: 5 });
    expect(fake.tokenRequests() - before).toBe(1);
    expect(
      fake
        .searches()
        .slice(-2)
        .map((search) => search.authorized),
    ).toEqual([false, true]);
    expect((await tokenDoc())?.version).toBe(2);
  });

  it('a second 401 stands: one refresh, one retry, then a recorded error and no loop', async () => {
    // Upwork's clock a day ahead at every look: each access token it issues is dead by the time it is used.
    let upworkTime = Date.now();
    installFake({ clock: () => new Date((upworkTime += 86_400_000)) });
    const report = await run();
    expect(report).toMatchObject({ status: 'error', error: 'HTTP 401' });
    // The first token, then the one refresh after the 401.
    expect(fake.tokenRequests()).toBe(2);
    expect(fake.searches().map((search) => search.authorized)).toEqual([false, false]);
    expect(await storedJobs()).toBe(0);
  });

  it('a refresh answer without a new refresh token keeps the old one (rotation is not documented)', async () => {
    installFake({ rotateRefreshTokens: false });
    await run();
    await expireStoredToken();
    expect(await run()).toMatchObject({ status: 'ok' });
    expect(fake.tokenRequests()).toBe(2);
    expect(openStoredToken(await tokenDoc(), SOURCE, CLIENT_SECRET)?.refreshToken).toBe(REFRESH_TOKEN);
  });
});

describe('upwork token: a rejected refresh token', () => {
  it('invalid_grant on the first token is a recorded error, nothing is stored, and the same token is not sent again', async () => {
    installFake({ refreshToken: 'a-token-the-operator-never-set' });

    const report = await run();

    expect(report).toMatchObject({ status: 'error', error: TOKEN_REJECTED_MESSAGE });
    expect((await feedState())?.lastError).toBe("Upwork refresh token rejected: set a new refreshToken in the source's params (SOURCES)");
    expect(await storedJobs()).toBe(0);
    const doc = await tokenDoc();
    expect(doc?.sealed ?? null).toBeNull();
    expect(doc?.expiresAt ?? null).toBeNull();
    expect(fake.searches()).toEqual([]);

    expect(await run()).toMatchObject({ status: 'error', error: TOKEN_REJECTED_MESSAGE });
    expect(fake.tokenRequests()).toBe(1);
  });

  it('a stored refresh token Upwork no longer accepts falls back to the refreshToken param only once the operator set a new one', async () => {
    await run();
    await expireStoredToken();
    // Upwork forgets every token it issued (revoked app access): a new grant gives a new refresh token.
    installFake({ refreshToken: 'operator-new-refresh-token' });

    // The stored token is rejected, and REFRESH_TOKEN is the one already used: not sent again.
    expect(await run()).toMatchObject({ status: 'error', error: TOKEN_REJECTED_MESSAGE });
    expect(fake.tokenRequests()).toBe(1);
    expect(await run()).toMatchObject({ status: 'error', error: TOKEN_REJECTED_MESSAGE });
    expect(fake.tokenRequests()).toBe(1);

    // The operator sets the new one: the next run uses it and stores what it rotates to.
    const report = await run({ credentials: { refreshToken: 'operator-new-refresh-token' } });
    expect(report).toMatchObject({ status: 'ok' });
    expect(fake.tokenRequests()).toBe(2);
    const doc = await tokenDoc();
    expect(doc).toMatchObject({ refreshRejected: false, lastError: null });
    expect(openStoredToken(doc, SOURCE, CLIENT_SECRET)?.refreshToken).toBe(fake.currentRefreshToken());
  });

  it('wrong client credentials are named as such, not as a rejected refresh token', async () => {
    const report = await run({ credentials: { clientSecret: 'not-the-client-secret' } });
    expect(report).toMatchObject({
      status: 'error',
      error: "Upwork client credentials rejected: check clientId and clientSecret in the source's params (SOURCES)",
    });
  });
});

describe('upwork token: leases and storage', () => {
  it('a run that finds another run refreshing waits, bounded, then skips with "token refresh in progress" and asks nothing', async () => {
    await run();
    await expireStoredToken();
    await h.db
      .collection('sourceTokens')
      .doc(SOURCE)
      .update({ leaseOwner: 'another-run', leaseUntil: Timestamp.fromMillis(Date.now() + 60_000) });
    const before = fake.tokenRequests();
    const started = Date.now();

    const report = await run({ timeoutMs: 500 });

    expect(report).toMatchObject({ status: 'error', error: TOKEN_REFRESH_IN_PROGRESS_MESSAGE });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(fake.tokenRequests()).toBe(before);
  });

  it('a lease whose holder died expires, and the next run takes it over', async () => {
    await run();
    await expireStoredToken();
    await h.db
      .collection('sourceTokens')
      .doc(SOURCE)
      .update({ leaseOwner: 'a-run-that-died', leaseUntil: Timestamp.fromMillis(Date.now() - 1_000) });
    expect(await run()).toMatchObject({ status: 'ok' });
    expect(await tokenDoc()).toMatchObject({ version: 2, leaseOwner: null });
  });

  it('the stored token document holds no token, secret or refresh token in plaintext, and opens only with the client secret', async () => {
    await run();
    await expireStoredToken();
    await run();
    const doc = await tokenDoc();
    const text = JSON.stringify(doc);
    expect(text).not.toContain('oauth2v2_fake_');
    expect(text).not.toContain(REFRESH_TOKEN);
    expect(text).not.toContain(CLIENT_SECRET);
    expect(text).not.toContain(fake.currentRefreshToken()!);
    expect(doc?.sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(openStoredToken(doc, SOURCE, CLIENT_SECRET)).toMatchObject({ refreshToken: fake.currentRefreshToken() });
    expect(openStoredToken(doc, SOURCE, 'another-client-secret')).toBeNull();
    // Sealed for this document and version: copied to another source, or rolled back, it does not open.
    expect(openStoredToken(doc, 'another-source', CLIENT_SECRET)).toBeNull();
    expect(openStoredToken({ ...doc, version: 1 }, SOURCE, CLIENT_SECRET)).toBeNull();
  });
});
