import { fetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { FeedFetchError, FeedParseError, fetchFeed, scoutUserAgent, type FeedFetch } from '../../lib/feeds/fetch-feed';
import { startFeedServer, type FeedServer } from '../../scripts/sample-feed/server';

const RSS = 'application/rss+xml; charset=utf-8';
const rss = (title: string) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>https://jobs.example.com/</link><description>d</description><item><guid>1</guid><title>${title}</title></item></channel></rss>`;

let server: FeedServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function source(url: string) {
  return { source: 'sample', url };
}

async function expectFetchError(promise: Promise<unknown>): Promise<FeedFetchError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FeedFetchError);
  return error as FeedFetchError;
}

describe('fetchFeed against the sample feed server', () => {
  it('fetches, then gets 304 when sending back the returned etag', async () => {
    server = await startFeedServer();
    const input = {
      source: source(server.feedUrl),
      fetch,
      allowPrivateAddresses: true,
      timeoutMs: 5_000,
      maxBytes: 1_000_000,
      userAgent: scoutUserAgent('https://scout.example'),
    };

    const first = await fetchFeed(input);
    expect(first.status).toBe('ok');
    if (first.status !== 'ok') return;
    expect(first.postings).toHaveLength(24);
    expect(first.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(first.lastModified).not.toBeNull();
    expect(first.bytes).toBeGreaterThan(10_000);

    const second = await fetchFeed({ ...input, etag: first.etag, lastModified: first.lastModified });
    expect(second).toEqual({ status: 'not-modified' });

    const requests = server.requests();
    expect(requests.map((r) => r.ifNoneMatch)).toEqual([null, first.etag]);
    expect(requests[0]).toMatchObject({ path: '/sample.xml', userAgent: 'ScoutBot/1.0 (+https://scout.example)' });
  });

  it('gets 304 from Last-Modified alone', async () => {
    server = await startFeedServer();
    const input = { source: source(server.feedUrl), fetch, allowPrivateAddresses: true, timeoutMs: 5_000, maxBytes: 1_000_000 };
    const first = await fetchFeed(input);
    if (first.status !== 'ok') throw new Error('expected ok');
    expect(await fetchFeed({ ...input, lastModified: first.lastModified })).toEqual({ status: 'not-modified' });
  });

  it('fetches again when the feed changed', async () => {
    server = await startFeedServer({ feeds: { '/jobs.xml': { body: rss('one'), contentType: RSS } } });
    const input = { source: source(`${server.url}/jobs.xml`), fetch, allowPrivateAddresses: true, timeoutMs: 5_000, maxBytes: 100_000 };
    const first = await fetchFeed(input);
    if (first.status !== 'ok') throw new Error('expected ok');
    server.setFeed('/jobs.xml', { body: rss('two'), contentType: RSS });
    const second = await fetchFeed({ ...input, etag: first.etag });
    expect(second.status).toBe('ok');
    if (second.status === 'ok') {
      expect(second.postings[0].title).toBe('two');
      expect(second.etag).not.toBe(first.etag);
    }
  });

  it('times out with FeedFetchError', async () => {
    server = await startFeedServer({ feeds: { '/slow.xml': { body: rss('slow'), contentType: RSS, delayMs: 5_000 } } });
    const started = Date.now();
    const error = await expectFetchError(
      fetchFeed({ source: source(`${server.url}/slow.xml`), fetch, allowPrivateAddresses: true, timeoutMs: 200, maxBytes: 100_000 }),
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error.message).toBe('timed out after 200 ms');
    expect(error.source).toBe('sample');
  });

  it('rejects a body over maxBytes', async () => {
    server = await startFeedServer();
    const error = await expectFetchError(
      fetchFeed({ source: source(server.feedUrl), fetch, allowPrivateAddresses: true, timeoutMs: 5_000, maxBytes: 1_000 }),
    );
    expect(error.message).toBe('response larger than 1000 bytes');
  });

  it('turns a 500 into FeedFetchError without quoting the body', async () => {
    server = await startFeedServer({
      feeds: { '/broken.xml': { body: 'SECRET stack trace', contentType: 'text/plain', status: 500 } },
    });
    const error = await expectFetchError(
      fetchFeed({ source: source(`${server.url}/broken.xml`), fetch, allowPrivateAddresses: true, timeoutMs: 5_000, maxBytes: 100_000 }),
    );
    expect(error).toMatchObject({ source: 'sample', status: 500, message: 'HTTP 500' });
    expect(error.message).not.toContain('SECRET');
  });

  it('turns a 404 into FeedFetchError', async () => {
    server = await startFeedServer();
    const error = await expectFetchError(
      fetchFeed({ source: source(`${server.url}/missing.xml`), fetch, allowPrivateAddresses: true, timeoutMs: 5_000, maxBytes: 100_000 }),
    );
    expect(error.status).toBe(404);
  });

  it('reports a refused connection in general terms', async () => {
    server = await startFeedServer();
    const url = server.feedUrl;
    await server.close();
    server = null;
    const error = await expectFetchError(
      fetchFeed({ source: source(url), fetch, allowPrivateAddresses: true, timeoutMs: 5_000, maxBytes: 100_000 }),
    );
    expect(error.message).toBe('connection refused');
    expect(error.status).toBeUndefined();
  });

  it('lets a malformed body surface as FeedParseError', async () => {
    server = await startFeedServer({ feeds: { '/bad.xml': { body: '<rss version="2.0"><channel><item>', contentType: RSS } } });
    await expect(
      fetchFeed({ source: source(`${server.url}/bad.xml`), fetch, allowPrivateAddresses: true, timeoutMs: 5_000, maxBytes: 100_000 }),
    ).rejects.toBeInstanceOf(FeedParseError);
  });
});

describe('fetchFeed with an injected fetch', () => {
  function endlessStream(chunkBytes: number, counter: { pulls: number; cancelled: boolean }) {
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        counter.pulls += 1;
        controller.enqueue(new Uint8Array(chunkBytes).fill(0x20));
      },
      cancel() {
        counter.cancelled = true;
      },
    });
  }

  it('stops reading a chunked body without Content-Length once it passes maxBytes', async () => {
    const counter = { pulls: 0, cancelled: false };
    const fakeFetch = (async () => new Response(endlessStream(16_384, counter), { status: 200 })) as FeedFetch;
    const error = await expectFetchError(
      fetchFeed({
        source: source('https://feeds.example/x'),
        fetch: fakeFetch,
        allowPrivateAddresses: true,
        timeoutMs: 5_000,
        maxBytes: 100_000,
      }),
    );
    expect(error.message).toBe('response larger than 100000 bytes');
    expect(counter.cancelled).toBe(true);
    expect(counter.pulls).toBeLessThan(12);
  });

  it('does not trust a Content-Length that understates the body', async () => {
    const counter = { pulls: 0, cancelled: false };
    const fakeFetch = (async () =>
      new Response(endlessStream(16_384, counter), { status: 200, headers: { 'content-length': '10' } })) as FeedFetch;
    await expectFetchError(
      fetchFeed({
        source: source('https://feeds.example/x'),
        fetch: fakeFetch,
        allowPrivateAddresses: true,
        timeoutMs: 5_000,
        maxBytes: 50_000,
      }),
    );
    expect(counter.cancelled).toBe(true);
  });

  it('sends conditional and content negotiation headers', async () => {
    let seen: Headers | null = null;
    const fakeFetch = (async (_url: string | URL | Request, init?: RequestInit) => {
      seen = new Headers(init?.headers);
      return new Response(null, { status: 304 });
    }) as FeedFetch;
    const result = await fetchFeed({
      source: source('https://feeds.example/x'),
      etag: '"abc"',
      lastModified: 'Mon, 30 Nov 2026 05:00:00 GMT',
      fetch: fakeFetch,
      allowPrivateAddresses: true,
      timeoutMs: 5_000,
      maxBytes: 1_000,
    });
    expect(result).toEqual({ status: 'not-modified' });
    const headers = seen as unknown as Headers;
    expect(headers.get('if-none-match')).toBe('"abc"');
    expect(headers.get('if-modified-since')).toBe('Mon, 30 Nov 2026 05:00:00 GMT');
    expect(headers.get('accept')).toMatch(/application\/rss\+xml.*application\/atom\+xml/);
    expect(headers.get('accept')).toContain('application/feed+json');
    expect(headers.get('user-agent')).toBe('ScoutBot/1.0');
  });

  it('decodes a feed in its declared legacy charset', async () => {
    const body = Buffer.from(
      '<?xml version="1.0" encoding="ISO-8859-1"?><rss version="2.0"><channel><title>t</title><item><guid>1</guid><title>Café développeur</title></item></channel></rss>',
      'latin1',
    );
    const fakeFetch = (async () => new Response(body, { status: 200, headers: { 'content-type': 'application/rss+xml' } })) as FeedFetch;
    const result = await fetchFeed({
      source: source('https://feeds.example/x'),
      fetch: fakeFetch,
      allowPrivateAddresses: true,
      timeoutMs: 5_000,
      maxBytes: 10_000,
    });
    expect(result.status === 'ok' && result.postings[0].title).toBe('Café développeur');
  });

  it('stops when the caller aborts (the run reaching its wall)', async () => {
    const controller = new AbortController();
    const fakeFetch = ((_url: string | URL | Request, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason as DOMException));
      })) as FeedFetch;
    const pending = fetchFeed({
      source: source('https://feeds.example/x'),
      fetch: fakeFetch,
      allowPrivateAddresses: true,
      timeoutMs: 5_000,
      maxBytes: 1_000,
      signal: controller.signal,
    });
    controller.abort();
    const error = await expectFetchError(pending);
    expect(error.message).toBe('aborted');
  });
});
