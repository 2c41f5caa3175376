import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SAMPLE_KINDS } from './sample-sources';
import type { FeedHandler, ServedFeed } from './served-feed';

// The answer types live apart so a sample kind can name them without importing the server that imports it.
export type { FeedHandler, HandledRequest, ServedFeed } from './served-feed';

export type FeedServerRequest = {
  method: string;
  path: string;
  ifNoneMatch: string | null;
  ifModifiedSince: string | null;
  userAgent: string | null;
};

export type FeedServer = {
  /** Origin without a trailing slash, e.g. http://127.0.0.1:3030. */
  url: string;
  /** The bundled sample feed: `${url}/sample.xml`. */
  feedUrl: string;
  port: number;
  setFeed(path: string, feed: ServedFeed): void;
  /** Answers `path` (any method) by calling `handler`: for APIs with state, like an OAuth2 token endpoint. Replaces a feed at the path, and a later setFeed replaces it. */
  setHandler(path: string, handler: FeedHandler): void;
  requests(): FeedServerRequest[];
  close(): Promise<void>;
};

/** A handler reads the request body whole, up to this. */
const MAX_HANDLER_BODY_BYTES = 1_000_000;

export const SAMPLE_FEED_PATH = '/sample.xml';
export const SAMPLE_FEED_CONTENT_TYPE = 'application/rss+xml; charset=utf-8';

type StoredFeed = ServedFeed & { etag: string; lastModified: string };

export function readSampleFeed(): Promise<string> {
  return readFile(new URL('./sample-feed.xml', import.meta.url), 'utf8');
}

/**
 * A loopback feed host for dev and tests: serves the bundled sample at
 * /sample.xml plus any feeds given, with a strong ETag (sha256 of the body)
 * and Last-Modified, and answers conditional GETs with 304 like a
 * well-behaved feed host would.
 */
export async function startFeedServer(
  options: { port?: number; host?: string; feeds?: Record<string, ServedFeed>; now?: () => Date } = {},
): Promise<FeedServer> {
  const now = options.now ?? (() => new Date());
  const host = options.host ?? '127.0.0.1';
  const feeds = new Map<string, StoredFeed>();
  const handlers = new Map<string, FeedHandler>();
  const log: FeedServerRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const setFeed = (path: string, feed: ServedFeed) => {
    handlers.delete(normalizePath(path));
    feeds.set(normalizePath(path), {
      ...feed,
      etag: `"${createHash('sha256').update(feed.body, 'utf8').digest('base64url')}"`,
      lastModified: now().toUTCString(),
    });
  };
  setFeed(SAMPLE_FEED_PATH, { body: await readSampleFeed(), contentType: SAMPLE_FEED_CONTENT_TYPE });
  const setHandler = (path: string, handler: FeedHandler) => {
    feeds.delete(normalizePath(path));
    handlers.set(normalizePath(path), handler);
  };
  for (const kind of SAMPLE_KINDS) for (const [path, feed] of Object.entries(await kind.served(now()))) setFeed(path, feed);
  // The routes are dated by the same clock as the fixed answers: a demo replaying 30 November must not serve December.
  for (const kind of SAMPLE_KINDS)
    for (const [path, handler] of Object.entries((await kind.routes?.(now())) ?? {})) setHandler(path, handler);
  for (const [path, feed] of Object.entries(options.feeds ?? {})) setFeed(path, feed);

  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    log.push({
      method: request.method ?? 'GET',
      path,
      ifNoneMatch: request.headers['if-none-match'] ?? null,
      ifModifiedSince: request.headers['if-modified-since'] ?? null,
      userAgent: request.headers['user-agent'] ?? null,
    });
    const handler = handlers.get(path);
    if (handler) return void handle(request, response, path, handler, timers);
    const feed = feeds.get(path);
    if (!feed?.delayMs) return respond(request, response, feed);
    const timer = setTimeout(() => {
      timers.delete(timer);
      respond(request, response, feed);
    }, feed.delayMs);
    timers.add(timer);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url,
    feedUrl: `${url}${SAMPLE_FEED_PATH}`,
    port,
    setFeed,
    setHandler,
    requests: () => log.map((entry) => ({ ...entry })),
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}

function respond(request: IncomingMessage, response: ServerResponse, feed: StoredFeed | undefined): void {
  if (response.destroyed) return;
  // POST too: a fixed answer at an API's path (a GraphQL endpoint) is served whatever the method.
  if (request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'POST') {
    response.writeHead(405, { allow: 'GET, HEAD, POST' }).end();
    return;
  }
  if (!feed) {
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
    return;
  }
  if (feed.status !== undefined && feed.status !== 200) {
    response
      .writeHead(feed.status, { 'content-type': feed.contentType, ...(feed.location ? { location: feed.location } : {}), ...feed.headers })
      .end(feed.body);
    return;
  }
  const validators = { etag: feed.etag, 'last-modified': feed.lastModified, 'cache-control': 'no-cache' };
  if (isNotModified(request, feed)) {
    response.writeHead(304, validators).end();
    return;
  }
  const body = Buffer.from(feed.body, 'utf8');
  response.writeHead(200, { ...validators, 'content-type': feed.contentType, 'content-length': body.byteLength, ...feed.headers });
  if (feed.dripMs && request.method !== 'HEAD') return drip(response, body, feed.dripMs);
  response.end(request.method === 'HEAD' ? undefined : body);
}

/** Reads the body, asks the handler, and answers like a feed set at the path (delay, drip, status). */
async function handle(request: IncomingMessage, response: ServerResponse, path: string, handler: FeedHandler, timers: Set<NodeJS.Timeout>) {
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.byteLength;
      if (size > MAX_HANDLER_BODY_BYTES) {
        response.writeHead(413).end();
        return;
      }
      chunks.push(chunk);
    }
    const served = await handler({
      method: request.method ?? 'GET',
      path,
      headers: request.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    });
    const feed: StoredFeed = {
      ...served,
      etag: `"${createHash('sha256').update(served.body, 'utf8').digest('base64url')}"`,
      lastModified: new Date().toUTCString(),
    };
    if (!feed.delayMs) return respond(request, response, feed);
    const timer = setTimeout(() => {
      timers.delete(timer);
      respond(request, response, feed);
    }, feed.delayMs);
    timers.add(timer);
  } catch {
    if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('handler failed\n');
  }
}

function drip(response: ServerResponse, body: Buffer, everyMs: number): void {
  let offset = 0;
  const timer = setInterval(() => {
    if (response.destroyed || offset >= body.byteLength) {
      clearInterval(timer);
      if (!response.destroyed) response.end();
      return;
    }
    response.write(body.subarray(offset, offset + 16));
    offset += 16;
  }, everyMs);
  response.once('close', () => clearInterval(timer));
}

// RFC 9110 §13.1.2: If-None-Match uses weak comparison and, when present,
// If-Modified-Since is ignored.
function isNotModified(request: IncomingMessage, feed: StoredFeed): boolean {
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    const tags = ifNoneMatch.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
    return tags.includes('*') || tags.includes(feed.etag);
  }
  const ifModifiedSince = request.headers['if-modified-since'];
  if (ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && Date.parse(feed.lastModified) <= since;
}

function normalizePath(path: string): string {
  return path.startsWith('/') ? path : `/${path}`;
}
