import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { FeedFetchError, fetchFeed, type FetchFeedInput } from '../../lib/feeds/fetch-feed';
import { startFeedServer, type FeedServer } from '../../scripts/sample-feed/server';

const RSS = 'application/rss+xml; charset=utf-8';
const SECRET = 'internal-admin-token-7f3a';
const secretFeed = `<?xml version="1.0"?><rss version="2.0"><channel><title>internal</title><item><guid>1</guid><title>${SECRET}</title></item></channel></rss>`;

/** Another service on the machine: it answers anything with content that must never leave it. */
type InternalService = { url: string; hits: () => number; close: () => Promise<void> };

async function startInternalService(host = '127.0.0.1'): Promise<InternalService> {
  let hits = 0;
  const server: Server = createServer((_request, response) => {
    hits += 1;
    response.writeHead(200, { 'content-type': RSS }).end(secretFeed);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    hits: () => hits,
    close: () => (server.listening ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve()),
  };
}

let feeds: FeedServer | null = null;
let internal: InternalService | null = null;
afterEach(async () => {
  await feeds?.close();
  await internal?.close();
  feeds = internal = null;
});

function input(url: string, allowPrivateAddresses: boolean): FetchFeedInput {
  return { source: { source: 'board', url }, fetch, timeoutMs: 5_000, maxBytes: 100_000, allowPrivateAddresses };
}

async function fetchError(promise: Promise<unknown>): Promise<FeedFetchError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FeedFetchError);
  return error as FeedFetchError;
}

function redirect(location: string, status = 302) {
  return { body: 'moved', contentType: 'text/plain', status, location };
}

describe('feed fetching never reaches a private address it was not configured with', () => {
  it('refuses a redirect to another service on the machine, even with FEED_ALLOW_PRIVATE_ADDRESSES', async () => {
    internal = await startInternalService();
    feeds = await startFeedServer({ feeds: { '/jobs.xml': redirect(`${internal.url}/admin/feed.xml`) } });

    const error = await fetchError(fetchFeed(input(`${feeds.url}/jobs.xml`, true)));
    expect(error.message).toBe('blocked address');
    expect(internal.hits()).toBe(0);
  });

  it('refuses the same redirect when the other service is named, not numbered (checked after DNS)', async () => {
    internal = await startInternalService();
    const byName = internal.url.replace('127.0.0.1', 'localhost');
    feeds = await startFeedServer({ feeds: { '/jobs.xml': redirect(`${byName}/admin/feed.xml`, 301) } });

    expect((await fetchError(fetchFeed(input(`${feeds.url}/jobs.xml`, true)))).message).toBe('blocked address');
    expect(internal.hits()).toBe(0);
  });

  it('refuses every private address, the configured one included, without FEED_ALLOW_PRIVATE_ADDRESSES', async () => {
    feeds = await startFeedServer();
    for (const url of [feeds.feedUrl, feeds.feedUrl.replace('127.0.0.1', 'localhost'), `http://[::1]:${feeds.port}/sample.xml`]) {
      expect((await fetchError(fetchFeed(input(url, false)))).message, url).toBe('blocked address');
    }
    expect(feeds.requests()).toHaveLength(0);
  });

  // Each IPv6 form that embeds an IPv4 address or is otherwise not global unicast, written the way a
  // hostile feed would write it. The URL parser turns [::127.0.0.1] into [::7f00:1], an
  // IPv4-compatible address that the guard once took for ordinary unicast.
  const EMBEDDING_FORMS = [
    '[::127.0.0.1]',
    '[::7f00:1]',
    '[::169.254.169.254]',
    '[::ffff:127.0.0.1]',
    '[64:ff9b::127.0.0.1]',
    '[64:ff9b:1::a00:1]',
    '[2002:7f00:1::1]',
    '[2001:0:4136:e378:8000:63bf:3fff:fdd2]',
    '[fec0::1]',
    '[100::1]',
  ];

  it.each(EMBEDDING_FORMS)('refuses a redirect to %s before connecting, even with FEED_ALLOW_PRIVATE_ADDRESSES', async (host) => {
    internal = await startInternalService();
    const port = new URL(internal.url).port;
    feeds = await startFeedServer({ feeds: { '/jobs.xml': redirect(`http://${host}:${port}/admin/feed.xml`) } });

    expect((await fetchError(fetchFeed(input(`${feeds.url}/jobs.xml`, true)))).message).toBe('blocked address');
    expect(internal.hits()).toBe(0);
  });

  it.each(EMBEDDING_FORMS)('refuses %s as the configured address without FEED_ALLOW_PRIVATE_ADDRESSES', async (host) => {
    internal = await startInternalService();
    const port = new URL(internal.url).port;

    expect((await fetchError(fetchFeed(input(`http://${host}:${port}/admin/feed.xml`, false)))).message).toBe('blocked address');
    expect(internal.hits()).toBe(0);
  });

  it('follows a redirect within the configured origin when FEED_ALLOW_PRIVATE_ADDRESSES is on', async () => {
    feeds = await startFeedServer({ feeds: { '/old.xml': redirect('/sample.xml', 308) } });
    const result = await fetchFeed(input(`${feeds.url}/old.xml`, true));
    expect(result.status === 'ok' && result.postings.length).toBe(24);
  });

  it('refuses a redirect that changes scheme', async () => {
    feeds = await startFeedServer({ feeds: { '/jobs.xml': redirect(`https://127.0.0.1:${1}/jobs.xml`) } });
    const error = await fetchError(fetchFeed(input(`${feeds.url}/jobs.xml`, true)));
    expect(error.message).toBe('redirect changes scheme');
  });

  it('follows at most 5 redirects', async () => {
    const chain = (hops: number) => {
      const served: Record<string, ReturnType<typeof redirect>> = {};
      for (let i = 0; i < hops; i++) served[`/hop-${i}.xml`] = redirect(i + 1 === hops ? '/sample.xml' : `/hop-${i + 1}.xml`);
      return served;
    };
    feeds = await startFeedServer({ feeds: chain(5) });
    const five = await fetchFeed(input(`${feeds.url}/hop-0.xml`, true));
    expect(five.status).toBe('ok');
    await feeds.close();

    feeds = await startFeedServer({ feeds: chain(6) });
    const error = await fetchError(fetchFeed(input(`${feeds.url}/hop-0.xml`, true)));
    expect(error.message).toBe('too many redirects');
    expect(feeds.requests().map((r) => r.path)).not.toContain('/sample.xml');
  });

  it('reports a refused connection in general terms', async () => {
    internal = await startInternalService();
    const url = `${internal.url}/feed.xml`;
    await internal.close();
    const error = await fetchError(fetchFeed(input(url, true)));
    expect(error.message).toBe('connection refused');
  });
});
