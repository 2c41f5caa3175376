import type { Firestore } from 'firebase-admin/firestore';
import { isNotModified, validatorHeaders } from '../http/conditional-get';
import type { Config } from '../runtime/config';
import { silentLogger, type Logger } from '../runtime/logger';
import { renderAtomFeed } from './atom-feed';
import { openPrivateLink } from './open-private-link';
import { FEED_ENTRIES, feedUpdatedAt, feedValidators, privateFeedDocument } from './private-feed';
import { scanArchive, withPostings } from './read-archive';

export type FeedDeps = {
  db: Firestore;
  config: Pick<Config, 'LINK_SECRET' | 'APP_URL'>;
  now: Date;
  log?: Logger;
};

export const ATOM_CONTENT_TYPE = 'application/atom+xml; charset=utf-8';

/**
 * What every answer of the feed carries, a 404 and a 304 included: its URL is a credential, so
 * nothing keeps a copy on the way (the reader keeps its own validators), no Referer carries it
 * on, and no search engine lists it.
 */
export function privateHeaders(): Headers {
  return new Headers({
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-robots-tag': 'noindex, nofollow',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  });
}

function plainAnswer(status: number, text: string, extra: Record<string, string> = {}): Response {
  const headers = privateHeaders();
  headers.set('content-type', 'text/plain; charset=utf-8');
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  return new Response(text, { status, headers });
}

/** Any link that opens no feed, for whatever reason: the same bare 404, which says nothing about whose it was. */
export const feedNotFound = () => plainAnswer(404, 'Not found\n');
/** Our fault: a reader tries again at its next poll. */
export const feedUnavailable = () =>
  plainAnswer(503, 'Scout could not read this feed just now; try again later.\n', { 'retry-after': '300' });

/**
 * GET|HEAD /feed?token=: the subscriber's archive as Atom, for a feed reader. The token (purpose
 * `feed`, signed with the subscriber's current feedTokenVersion) is the whole credential. A reader
 * that sends the validators of its copy (If-None-Match, If-Modified-Since) gets a bodiless 304
 * when the entries are the same, decided before any posting is read.
 */
export async function handleFeedRequest(request: Request, deps: FeedDeps): Promise<Response> {
  const log = deps.log ?? silentLogger;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    await request.body?.cancel().catch(() => undefined);
    return plainAnswer(405, 'Method Not Allowed\n', { allow: 'GET, HEAD' });
  }
  try {
    const token = new URL(request.url).searchParams.get('token');
    const link = await openPrivateLink(deps.db, { token, purpose: 'feed', secret: deps.config.LINK_SECRET, now: deps.now });
    if (!link.ok) {
      log('feed.refused', { reason: link.refused });
      return feedNotFound();
    }
    const { subscriber } = link;
    const scan = await scanArchive(deps.db, { uid: subscriber.id, now: deps.now, pageSize: FEED_ENTRIES, withDescription: true });
    const updated = feedUpdatedAt(scan.items, subscriber);
    const validators = feedValidators({ version: subscriber.feedTokenVersion ?? 0, items: scan.items, updated });
    const headers = privateHeaders();
    for (const [name, value] of Object.entries(validatorHeaders(validators))) headers.set(name, value);
    if (isNotModified(request.headers, validators)) {
      log('feed.not_modified', { entries: scan.items.length });
      return new Response(null, { status: 304, headers });
    }
    const page = await withPostings(deps.db, scan);
    const body = renderAtomFeed(
      privateFeedDocument({
        subscriber,
        entries: page.entries,
        updated,
        secret: deps.config.LINK_SECRET,
        appUrl: deps.config.APP_URL,
        selfUrl: `${deps.config.APP_URL}/feed?token=${encodeURIComponent(link.token)}`,
        now: deps.now,
        keywords: subscriber.keywords,
      }),
    );
    headers.set('content-type', ATOM_CONTENT_TYPE);
    log('feed.served', { entries: page.entries.length });
    return new Response(request.method === 'HEAD' ? null : body, { status: 200, headers });
  } catch (error) {
    log('feed.error', { error: error instanceof Error ? error.message : String(error) });
    return feedUnavailable();
  }
}
