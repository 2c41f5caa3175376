import { Agent, type Dispatcher } from 'undici';
import { retryAfterMs } from '../http/retry-after';
import { createPublicOnlyAgent, SOURCE_HTTP_VERSION } from '../http/address-guard';
import { decodeBody } from './decode-body';
import { FeedFetchError } from './feed-errors';
import { readCappedBody, type ByteStream } from '../http/read-capped-body';

/**
 * What a source's requests need of a fetch: in production undici's own `fetch`, never Node's
 * built-in one, because the per-request `dispatcher` that keeps sources off private addresses must
 * come from the same undici as the fetch that uses it (Node bundles its own copy, of another version).
 */
export type FeedFetch = (
  url: string,
  init: {
    method: 'GET' | 'POST';
    headers: Record<string, string>;
    body?: string;
    redirect: 'manual';
    signal: AbortSignal;
    dispatcher: Dispatcher;
  },
) => Promise<{ status: number; ok: boolean; headers: { get(name: string): string | null }; body: ByteStream | null }>;

/** One answer a source gave: a 304, or a 2xx body decoded to text. Anything else has thrown. */
export type SourceAnswer =
  | { status: 'not-modified' }
  | {
      status: 'ok';
      text: string;
      /** 2xx, or one of the request's `readErrorBodyOf` statuses. */
      httpStatus: number;
      contentType: string | null;
      url: string;
      etag: string | null;
      lastModified: string | null;
      bytes: number;
    };

export type SourceRequestInit = {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Send If-None-Match / If-Modified-Since with these (the validators of the source's last success). */
  etag?: string | null;
  lastModified?: string | null;
  /**
   * Error statuses whose body the adapter reads itself instead of a FeedFetchError: an OAuth2
   * token endpoint names its error (`invalid_grant`…) only in a 400's body (RFC 6749 §5.2).
   */
  readErrorBodyOf?: number[];
};

/**
 * The one way an adapter talks to the network, bound to its source's limits. Every request and
 * every redirect hop gets the same checks: the timeout and byte cap, no change of scheme, no
 * private address except the operator's own configured origins (FEED_ALLOW_PRIVATE_ADDRESSES), and
 * for API sources no redirect to another host at all — an API that answers somewhere else is
 * broken or hijacked, not moved.
 */
export type SourceHttp = {
  request(url: string, init?: SourceRequestInit): Promise<SourceAnswer>;
};

export type SourceHttpOptions = {
  /** The source id, carried by every error so the runner can record it. */
  source: string;
  fetch: FeedFetch;
  timeoutMs: number;
  maxBytes: number;
  /** FEED_ALLOW_PRIVATE_ADDRESSES: the origins the adapter itself asks may be private (local stack, tests). */
  allowPrivateAddresses: boolean;
  /** Feeds move between hosts (and are followed, if public); API answers must come from the host asked. */
  redirects: 'any-public-host' | 'same-host';
  userAgent: string;
  /** The run's own deadline, so a cycle near its wall can stop a slow source. */
  signal?: AbortSignal;
};

/** Followed one by one, each checked like the first request; a sixth is refused. */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** A Retry-After past this is recorded as this: a source cannot park itself for a month. */
const MAX_RETRY_AFTER_SECONDS = 86_400;

export function scoutUserAgent(appUrl?: string): string {
  return appUrl ? `ScoutBot/1.0 (+${appUrl})` : 'ScoutBot/1.0';
}

/**
 * Builds the http of one source for one run. The timeout covers the whole of one request (its
 * redirects included), and throws FeedFetchError for transport failures, blocked addresses,
 * refused redirects, timeouts, oversized bodies and any status other than 2xx/304 — with a short
 * message fit for feeds/{source}.lastError, never echoing what a target answered.
 */
export function createSourceHttp(options: SourceHttpOptions): SourceHttp {
  return { request: (url, init = {}) => requestOnce(options, url, init) };
}

async function requestOnce(options: SourceHttpOptions, target: string, init: SourceRequestInit): Promise<SourceAnswer> {
  const { timeoutMs, maxBytes } = options;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const fail: Fail = (message, extra = {}) => new FeedFetchError({ source: options.source, message, ...extra });
  let configured: URL;
  try {
    configured = new URL(target);
  } catch {
    throw fail('invalid source URL');
  }
  if (configured.protocol !== 'http:' && configured.protocol !== 'https:') throw fail('source URL must be http(s)');
  const publicOnly = createPublicOnlyAgent();
  // With FEED_ALLOW_PRIVATE_ADDRESSES the origin the adapter asks may be private: the operator chose it.
  // Any other origin a redirect leads to must be public, with or without the setting.
  const operatorsOrigin = options.allowPrivateAddresses ? new Agent(SOURCE_HTTP_VERSION) : null;
  const dispatcherFor = (url: URL): Dispatcher => (operatorsOrigin && url.origin === configured.origin ? operatorsOrigin : publicOnly);

  try {
    let url = configured;
    let method = init.method ?? 'GET';
    for (let redirects = 0; ; redirects++) {
      const response = await options.fetch(url.href, {
        method,
        headers: requestHeaders(options, init),
        ...(method === 'POST' && init.body !== undefined ? { body: init.body } : {}),
        redirect: 'manual',
        signal,
        dispatcher: dispatcherFor(url),
      });
      if (REDIRECT_STATUSES.has(response.status)) {
        await response.body?.cancel().catch(() => undefined);
        if (redirects === MAX_REDIRECTS) throw fail('too many redirects', { status: response.status });
        const next = redirectTarget(url, response.headers.get('location'), (message) => fail(message, { status: response.status }));
        if (options.redirects === 'same-host' && next.host !== configured.host)
          throw fail('redirect to another host', { status: response.status });
        // A POST answered with a redirect is not re-sent elsewhere: only GETs follow.
        if (method !== 'GET') throw fail('redirect of a POST', { status: response.status });
        url = next;
        method = 'GET';
        continue;
      }
      return await readAnswer(response, { url, init, maxBytes, fail });
    }
  } catch (error) {
    if (error instanceof FeedFetchError) throw error;
    if (timeout.aborted) throw fail(`timed out after ${timeoutMs} ms`, { cause: error });
    if (signal.aborted) throw fail('aborted', { cause: error });
    throw fail(describeNetworkError(error), { cause: error });
  } finally {
    await Promise.all([publicOnly.destroy(), operatorsOrigin?.destroy()]);
  }
}

type FeedResponse = Awaited<ReturnType<FeedFetch>>;
type Fail = (message: string, extra?: { status?: number; cause?: unknown; retryAfterSeconds?: number }) => FeedFetchError;

/** A final answer (no redirect): a 304, a body within the byte cap, or the FeedFetchError any other answer stands for. */
async function readAnswer(
  response: FeedResponse,
  { url, init, maxBytes, fail }: { url: URL; init: SourceRequestInit; maxBytes: number; fail: Fail },
): Promise<SourceAnswer> {
  if (response.status === 304) {
    await response.body?.cancel().catch(() => undefined);
    return { status: 'not-modified' };
  }
  const readsErrorBody = init.readErrorBodyOf?.includes(response.status) ?? false;
  if (!response.ok && !readsErrorBody) {
    await response.body?.cancel().catch(() => undefined);
    const retryAfterSeconds =
      response.status === 429 || response.status === 503 ? parseRetryAfter(response.headers.get('retry-after')) : undefined;
    throw fail(`HTTP ${response.status}`, {
      status: response.status,
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    });
  }
  const declaredLength = Number(response.headers.get('content-length'));
  if (Number.isFinite(declaredLength) && declaredLength > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw fail(`response larger than ${maxBytes} bytes`, { status: response.status });
  }
  const bytes = await readCappedBody(response.body, maxBytes);
  if (bytes === null) throw fail(`response larger than ${maxBytes} bytes`, { status: response.status });
  const contentType = response.headers.get('content-type');
  return {
    status: 'ok',
    text: decodeBody(bytes, contentType),
    httpStatus: response.status,
    contentType,
    url: url.href,
    etag: response.headers.get('etag'),
    lastModified: response.headers.get('last-modified'),
    bytes: bytes.byteLength,
  };
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

function requestHeaders(options: SourceHttpOptions, init: SourceRequestInit): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': options.userAgent, ...init.headers };
  if (init.etag) headers['if-none-match'] = init.etag;
  if (init.lastModified) headers['if-modified-since'] = init.lastModified;
  return headers;
}

/** A board's Retry-After in whole seconds, at most a day; absent, unreadable or already past is no advice at all. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  const ms = retryAfterMs(value, now);
  if (ms === null || ms <= 0) return undefined;
  return Math.min(Math.ceil(ms / 1000), MAX_RETRY_AFTER_SECONDS);
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
// own message may quote the address it tried, and the source's status is visible outside.
function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const codes = [cause, ...(cause instanceof AggregateError ? (cause.errors as unknown[]) : [])].map(
    (e) => (e as { code?: unknown } | null)?.code,
  );
  for (const code of codes) if (typeof code === 'string' && NETWORK_ERRORS[code]) return NETWORK_ERRORS[code];
  if (codes.some((code) => typeof code === 'string' && /CERT|TLS|SSL/.test(code))) return 'TLS error';
  return 'network error';
}
