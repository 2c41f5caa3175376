import type { Firestore } from 'firebase-admin/firestore';
import pLimit from 'p-limit';
import { feedStatesCollection, readFeedState, recordFeedFailure, recordFeedSuccess } from './feed-state';
import type { FeedSource } from './feed-source';
import { fetchFeed, scoutUserAgent, type FeedFetch } from './fetch-feed';
import type { Posting } from './posting';
import { storeNewPostings } from './store-postings';

export type FeedReport = {
  source: string;
  status: 'ok' | 'not-modified' | 'error';
  postings?: number;
  new?: number;
  /** New postings past FEED_MAX_NEW_POSTINGS_PER_RUN, left for the next run. */
  held?: number;
  error?: string;
};

const FEED_CONCURRENCY = 4;

/**
 * fetch feeds → store new postings. Each feed is fetched conditionally with the validators of its
 * last success; its new validators are saved only after its postings are stored, so a crash in
 * between re-fetches instead of skipping them — and never when postings were held back for the
 * next run, whose fetch must see them again rather than a 304. One broken feed is recorded on
 * feeds/{source} and never stops the others.
 */
export async function refreshFeeds(
  deps: { db: Firestore; fetch: FeedFetch },
  input: {
    sources: FeedSource[];
    now: Date;
    runId: string;
    retentionDays: number;
    timeoutMs: number;
    maxBytes: number;
    allowPrivateAddresses: boolean;
    maxNewPerSource: number;
    appUrl: string;
    dryRun: boolean;
  },
): Promise<{ fetched: number; new: number; held: number; feeds: FeedReport[]; preview: Posting[] }> {
  const { db } = deps;
  const states = input.sources.length > 0 ? await db.getAll(...input.sources.map((s) => feedStatesCollection(db).doc(s.source))) : [];
  const limit = pLimit(FEED_CONCURRENCY);
  const preview: Posting[] = [];
  const feeds = await Promise.all(
    input.sources.map((source, i) =>
      limit(async (): Promise<FeedReport> => {
        const state = readFeedState(states[i].data());
        try {
          const result = await fetchFeed({
            source,
            // A dry run wants to see what is there, not what changed.
            etag: input.dryRun ? null : state?.etag,
            lastModified: input.dryRun ? null : state?.lastModified,
            fetch: deps.fetch,
            timeoutMs: input.timeoutMs,
            maxBytes: input.maxBytes,
            allowPrivateAddresses: input.allowPrivateAddresses,
            userAgent: scoutUserAgent(input.appUrl),
          });
          if (input.dryRun) {
            if (result.status === 'ok') preview.push(...result.postings);
            return { source: source.source, status: result.status, postings: result.status === 'ok' ? result.postings.length : 0 };
          }
          if (result.status === 'not-modified') {
            await recordFeedSuccess(db, { source: source.source, url: source.url, now: input.now, postings: null });
            return { source: source.source, status: 'not-modified', postings: 0, new: 0 };
          }
          const { created, held } = await storeNewPostings(db, {
            postings: result.postings,
            now: input.now,
            runId: input.runId,
            retentionDays: input.retentionDays,
            maxNew: input.maxNewPerSource,
          });
          await recordFeedSuccess(db, {
            source: source.source,
            url: source.url,
            etag: held > 0 ? null : result.etag,
            lastModified: held > 0 ? null : result.lastModified,
            now: input.now,
            postings: result.postings.length,
          });
          return { source: source.source, status: 'ok', postings: result.postings.length, new: created, held };
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          if (!input.dryRun) await recordFeedFailure(db, { source: source.source, url: source.url, error: message, now: input.now });
          return { source: source.source, status: 'error', error: message };
        }
      }),
    ),
  );
  return {
    fetched: feeds.reduce((n, f) => n + (f.postings ?? 0), 0),
    new: feeds.reduce((n, f) => n + (f.new ?? 0), 0),
    held: feeds.reduce((n, f) => n + (f.held ?? 0), 0),
    feeds,
    preview,
  };
}
