import { Agent, type Dispatcher } from 'undici';
import { createPublicOnlyAgent } from './address-guard';
import { decodeBody } from './decode-body';
import { FeedFetchError, FeedParseError } from './feed-errors';
import type { FeedSource } from './feed-source';
import { parseFeed } from './parse-feed';
import type { Posting } from './posting';
import { readCappedBody, type ByteStream } from '../http/read-capped-body';

export { FeedFetchError, FeedParseError } from './feed-errors';

export type FeedFetchResult =
  { status: 'not-modified' } | { status: 'ok'; postings: Posting[]; etag: string | null; lastModified: string | null; bytes: number };

/**
 * What fetchFeed needs of a fetch: in production undici's own `fetch`, never Node's built-in one,
 * because the per-request `dispatcher` that keeps feeds off private addresses must come from the
 * same undici as the fetch that uses it (Node bundles its own copy, of another version).
 */
export type FeedFetch = (
  url: string,
  init: { method: 'GET'; headers: Record<string, string>; redirect: 'manual'; signal: AbortSignal; dispatcher: Dispatcher },
) => Promise<{ status: number; ok: boolean; headers: { get(name: string): string | null }; body: ByteStream | null }>;

export type FetchFeedInput = {
  source: FeedSource;
  /** Validators stored on feeds/{source} from the previous fetch. */
  etag?: string | null;
  lastModified?: string | null;
  fetch: FeedFetch;
  timeoutMs: number;
  maxBytes: number;
  /**
   * FEED_ALLOW_PRIVATE_ADDRESSES: the configured URL's own origin may be a private address (local
   * development, tests). Any other origin a redirect leads to must still be public.
   */
  allowPrivateAddresses: boolean;
  /** e.g. scoutUserAgent(APP_URL). */
  userAgent?: string;
  /** The run's own deadline, so a cycle near its wall can stop a slow feed. */
  signal?: AbortSignal;
};

/** Followed one by one, each checked like the first request; a sixth is refused. */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const ACCEPT = [
  'application/feed+json',
  'application/rss+xml',
  'application/atom+xml',
  'application/rdf+xml;q=0.9',
  'application/xml;q=0.8',
  'text/xml;q=0.8',
  'application/json;q=0.7',
  '*/*;q=0.1',
].join(', ');

export function scoutUserAgent(appUrl?: string): string {
  return appUrl ? `ScoutBot/1.0 (+${appUrl})` : 'ScoutBot/1.0';
}

/**
 * Conditional GET of one feed. Throws FeedFetchError for transport failures, blocked addresses,
 * refused redirects, timeouts, oversized bodies and any status other than 2xx/304, and
 * FeedParseError when the body is not a valid feed. Both carry `source` and a short message fit
 * for feeds/{source}.lastError — in general terms, never echoing what a target answered.
 */
export async function fetchFeed(input: FetchFeedInput): Promise<FeedFetchResult> {
  const { source, timeoutMs, maxBytes } = input;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = input.signal ? AbortSignal.any([timeout, input.signal]) : timeout;
  const fail = (message: string, extra: { status?: number; cause?: unknown } = {}) =>
    new FeedFetchError({ source: source.source, message, ...extra });
  const configured = new URL(source.url);
  const publicOnly = createPublicOnlyAgent();
  // With FEED_ALLOW_PRIVATE_ADDRESSES the configured origin may be private: the operator chose it.
  // Any other origin a redirect leads to must be public, with or without the setting.
  const operatorsOrigin = input.allowPrivateAddresses ? new Agent() : null;
  const dispatcherFor = (url: URL): Dispatcher => (operatorsOrigin && url.origin === configured.origin ? operatorsOrigin : publicOnly);

  try {
    let url = configured;
    // Redirects are followed here, not by fetch, so that every hop gets the same checks.
    for (let redirects = 0; ; redirects++) {
      const response = await input.fetch(url.href, {
        method: 'GET',
        headers: requestHeaders(input),
        redirect: 'manual',
        signal,
        dispatcher: dispatcherFor(url),
      });
      if (REDIRECT_STATUSES.has(response.status)) {
        await response.body?.cancel().catch(() => undefined);
        if (redirects === MAX_REDIRECTS) throw fail('too many redirects', { status: response.status });
        url = redirectTarget(url, response.headers.get('location'), (message) => fail(message, { status: response.status }));
        continue;
      }
      if (response.status === 304) {
        await response.body?.cancel().catch(() => undefined);
        return { status: 'not-modified' };
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw fail(`HTTP ${response.status}`, { status: response.status });
      }
      const declaredLength = Number(response.headers.get('content-length'));
      if (Number.isFinite(declaredLength) && declaredLength > maxBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw fail(`response larger than ${maxBytes} bytes`, { status: response.status });
      }
      const bytes = await readCappedBody(response.body, maxBytes);
      if (bytes === null) throw fail(`response larger than ${maxBytes} bytes`, { status: response.status });

      const body = decodeBody(bytes, response.headers.get('content-type'));
      return {
        status: 'ok',
        postings: parseFeed(body, { source: source.source, baseUrl: url.href }),
        etag: response.headers.get('etag'),
        lastModified: response.headers.get('last-modified'),
        bytes: bytes.byteLength,
      };
    }
  } catch (error) {
    if (error instanceof FeedFetchError || error instanceof FeedParseError) throw error;
    if (timeout.aborted) throw fail(`timed out after ${timeoutMs} ms`, { cause: error });
    if (signal.aborted) throw fail('aborted', { cause: error });
    throw fail(describeNetworkError(error), { cause: error });
  } finally {
    await Promise.all([publicOnly.destroy(), operatorsOrigin?.destroy()]);
  }
}

/** The next hop of a redirect: same scheme only (no downgrade to http, no file: or ftp:). */
function redirectTarget(from: URL, location: string | null, fail: (message: string) => FeedFetchError): URL {
  if (!location) throw fail('redirect without a location');
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw fail('redirect to an invalid URL');
  }
  if (next.protocol !== from.protocol) throw fail('redirect changes scheme');
  return next;
}

function requestHeaders(input: FetchFeedInput): Record<string, string> {
  const headers: Record<string, string> = { accept: ACCEPT, 'user-agent': input.userAgent ?? scoutUserAgent() };
  if (input.etag) headers['if-none-match'] = input.etag;
  if (input.lastModified) headers['if-modified-since'] = input.lastModified;
  return headers;
}

const NETWORK_ERRORS: Record<string, string> = {
  ERR_BLOCKED_ADDRESS: 'blocked address',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection closed',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for the response',
  UND_ERR_BODY_TIMEOUT: 'timed out reading the response',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
};

// undici reports "fetch failed" with the useful part in `cause.code` (or, when Node raced IPv4
// and IPv6, in the codes of an AggregateError's errors). Only a fixed phrase is kept: the error's
// own message may quote the address it tried, and the feed's status is visible outside.
function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const codes = [cause, ...(cause instanceof AggregateError ? cause.errors : [])].map((e) => (e as { code?: unknown } | null)?.code);
  for (const code of codes) if (typeof code === 'string' && NETWORK_ERRORS[code]) return NETWORK_ERRORS[code];
  if (codes.some((code) => typeof code === 'string' && /CERT|TLS|SSL/.test(code))) return 'TLS error';
  return 'network error';
}
