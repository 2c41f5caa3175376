import { decodeBody } from './decode-body';
import { FeedFetchError, FeedParseError } from './feed-errors';
import type { FeedSource } from './feed-source';
import { parseFeed } from './parse-feed';
import type { Posting } from './posting';
import { readCappedBody } from '../http/read-capped-body';

export { FeedFetchError, FeedParseError } from './feed-errors';

export type FeedFetchResult =
  { status: 'not-modified' } | { status: 'ok'; postings: Posting[]; etag: string | null; lastModified: string | null; bytes: number };

export type FetchFeedInput = {
  source: FeedSource;
  /** Validators stored on feeds/{source} from the previous fetch. */
  etag?: string | null;
  lastModified?: string | null;
  fetch: typeof fetch;
  timeoutMs: number;
  maxBytes: number;
  /** e.g. scoutUserAgent(APP_URL). */
  userAgent?: string;
  /** The run's own deadline, so a cycle near its wall can stop a slow feed. */
  signal?: AbortSignal;
};

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
 * Conditional GET of one feed. Throws FeedFetchError for transport failures,
 * timeouts, oversized bodies and any status other than 2xx/304, and
 * FeedParseError when the body is not a valid feed. Both carry `source` and
 * a short message fit for feeds/{source}.lastError.
 */
export async function fetchFeed(input: FetchFeedInput): Promise<FeedFetchResult> {
  const { source, timeoutMs, maxBytes } = input;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = input.signal ? AbortSignal.any([timeout, input.signal]) : timeout;
  const fail = (message: string, extra: { status?: number; cause?: unknown } = {}) =>
    new FeedFetchError({ source: source.source, message, ...extra });

  try {
    const response = await input.fetch(source.url, {
      method: 'GET',
      headers: requestHeaders(input),
      redirect: 'follow',
      signal,
    });
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
      postings: parseFeed(body, { source: source.source, baseUrl: response.url || source.url }),
      etag: response.headers.get('etag'),
      lastModified: response.headers.get('last-modified'),
      bytes: bytes.byteLength,
    };
  } catch (error) {
    if (error instanceof FeedFetchError || error instanceof FeedParseError) throw error;
    if (timeout.aborted) throw fail(`timed out after ${timeoutMs} ms`, { cause: error });
    if (signal.aborted) throw fail('aborted', { cause: error });
    throw fail(describeNetworkError(error), { cause: error });
  }
}

function requestHeaders(input: FetchFeedInput): Record<string, string> {
  const headers: Record<string, string> = { accept: ACCEPT, 'user-agent': input.userAgent ?? scoutUserAgent() };
  if (input.etag) headers['if-none-match'] = input.etag;
  if (input.lastModified) headers['if-modified-since'] = input.lastModified;
  return headers;
}

// undici reports "fetch failed" with the useful part in `cause.code`.
function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : null;
  return code ? `network error (${code})` : 'network error';
}
