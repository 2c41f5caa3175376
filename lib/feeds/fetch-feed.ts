import type { FeedSource } from './feed-source';
import { parseFeed } from './parse-feed';
import type { Posting } from './posting';
import { createSourceHttp, scoutUserAgent, type FeedFetch } from './source-http';

export { FeedFetchError, FeedParseError } from './feed-errors';
export { scoutUserAgent, type FeedFetch } from './source-http';

export type FeedFetchResult =
  { status: 'not-modified' } | { status: 'ok'; postings: Posting[]; etag: string | null; lastModified: string | null; bytes: number };

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

export const FEED_ACCEPT = [
  'application/feed+json',
  'application/rss+xml',
  'application/atom+xml',
  'application/rdf+xml;q=0.9',
  'application/xml;q=0.8',
  'text/xml;q=0.8',
  'application/json;q=0.7',
  '*/*;q=0.1',
].join(', ');

/**
 * Conditional GET of one RSS, Atom, RDF or JSON feed. Throws FeedFetchError for anything
 * createSourceHttp refuses, and FeedParseError when the body is not a valid feed. Feeds move
 * between hosts, so a redirect to another public host is followed.
 */
export async function fetchFeed(input: FetchFeedInput): Promise<FeedFetchResult> {
  const http = createSourceHttp({
    source: input.source.source,
    fetch: input.fetch,
    timeoutMs: input.timeoutMs,
    maxBytes: input.maxBytes,
    allowPrivateAddresses: input.allowPrivateAddresses,
    redirects: 'any-public-host',
    userAgent: input.userAgent ?? scoutUserAgent(),
    signal: input.signal,
  });
  const answer = await http.request(input.source.url, {
    headers: { accept: FEED_ACCEPT },
    etag: input.etag,
    lastModified: input.lastModified,
  });
  if (answer.status === 'not-modified') return answer;
  return {
    status: 'ok',
    postings: parseFeed(answer.text, { source: input.source.source, baseUrl: answer.url }),
    etag: answer.etag,
    lastModified: answer.lastModified,
    bytes: answer.bytes,
  };
}
