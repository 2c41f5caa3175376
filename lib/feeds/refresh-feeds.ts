import type { Firestore } from 'firebase-admin/firestore';
import pLimit from 'p-limit';
import type { Config } from '../runtime/config';
import { FeedFetchError } from './feed-errors';
import { feedStatesCollection, readFeedState, recordFeedFailure, recordFeedSuccess, type FeedState } from './feed-state';
import { failureOf, isProbeDue } from './source-health';
import { isTextCut, type Posting } from './posting';
import type { ConfiguredSource } from './source-adapter';
import { createSourceHttp, scoutUserAgent, type FeedFetch } from './source-http';
import { adapterFor } from './source-kinds';
import { storeNewPostings } from './store-postings';

export type FeedReport = {
  source: string;
  kind: string;
  /** `skipped`: not due (its minimum interval, a Retry-After, a disabled source's daily probe) — not asked this run. */
  status: 'ok' | 'not-modified' | 'error' | 'skipped';
  /** Why it was skipped. */
  reason?: string;
  postings?: number;
  new?: number;
  /** New postings past FEED_MAX_NEW_POSTINGS_PER_RUN, left for the next run. */
  held?: number;
  /** New listings that were copies of a job already stored (another board, a repost): on its card, not new jobs. */
  duplicates?: number;
  error?: string;
  /** Postings of this answer whose text reached MAX_DESCRIPTION and lost its end (isTextCut); absent when none. */
  textCut?: number;
};

const SOURCE_CONCURRENCY = 4;
/** New postings one source may add in one run: a flooding board cannot fill a run; the rest wait for the next one. */
export const FEED_MAX_NEW_POSTINGS_PER_RUN = 500;

/**
 * read sources → store new postings. Each source is read by its kind's adapter, conditionally
 * with the validators of its last success; its new validators are saved only after its postings
 * are stored, so a crash in between re-fetches instead of skipping them — and never when postings
 * were held back for the next run, whose fetch must see them again rather than a 304. One broken
 * source is recorded on feeds/{source} and never stops the others.
 */
export async function refreshFeeds(
  deps: { db: Firestore; fetch: FeedFetch },
  input: { sources: ConfiguredSource[]; now: Date; runId: string; config: Config; dryRun: boolean; signal?: AbortSignal },
): Promise<{ fetched: number; new: number; held: number; feeds: FeedReport[]; dryRunPostings: Posting[] }> {
  const { db } = deps;
  const { config } = input;
  const states = input.sources.length > 0 ? await db.getAll(...input.sources.map((s) => feedStatesCollection(db).doc(s.id))) : [];
  const limit = pLimit(SOURCE_CONCURRENCY);
  const dryRunPostings: Posting[] = [];
  const feeds = await Promise.all(
    input.sources.map((source, i) =>
      limit(async (): Promise<FeedReport> => {
        const adapter = adapterFor(source.kind);
        const state = readFeedState(states[i].data());
        const report = { source: source.id, kind: source.kind };
        // A dry run wants to see what is there, whatever the schedule.
        const notDue = input.dryRun ? null : whyNotDue(source, state, input.now);
        if (notDue) return { ...report, status: 'skipped', reason: notDue };
        const described = { source: source.id, kind: source.kind, label: adapter.label(source), url: sourceUrl(source), now: input.now };
        try {
          const result = await adapter.read({
            source,
            http: createSourceHttp({
              source: source.id,
              fetch: deps.fetch,
              timeoutMs: source.timeoutMs,
              maxBytes: source.maxBytes,
              allowPrivateAddresses: config.FEED_ALLOW_PRIVATE_ADDRESSES,
              redirects: adapter.redirects,
              userAgent: scoutUserAgent(config.APP_URL),
              signal: input.signal,
            }),
            // A dry run wants to see what is there, not what changed.
            validators: input.dryRun || !state ? null : { etag: state.etag, lastModified: state.lastModified },
            now: input.now,
            db,
            config,
          });
          const textCut = result.status === 'ok' ? result.postings.filter((p) => isTextCut(p.description)).length : 0;
          const cut = textCut > 0 ? { textCut } : {};
          if (input.dryRun) {
            if (result.status === 'ok') dryRunPostings.push(...result.postings);
            return { ...report, ...cut, status: result.status, postings: result.status === 'ok' ? result.postings.length : 0 };
          }
          if (result.status === 'not-modified') {
            await recordFeedSuccess(db, { ...described, postings: null });
            return { ...report, status: 'not-modified', postings: 0, new: 0 };
          }
          const { created, duplicates, held } = await storeNewPostings(db, {
            postings: result.postings,
            now: input.now,
            runId: input.runId,
            retentionDays: config.RETENTION_DAYS,
            maxNew: config.tuning?.FEED_MAX_NEW_POSTINGS_PER_RUN ?? FEED_MAX_NEW_POSTINGS_PER_RUN,
            // Where a card says the job was seen: the answer's own name for itself, else the board's.
            label: result.siteName ?? adapter.siteName?.(source) ?? described.label,
          });
          await recordFeedSuccess(db, {
            ...described,
            validators: held > 0 ? { etag: null, lastModified: null } : result.validators,
            postings: result.postings.length,
            created,
          });
          // A copy of a job another source (or an earlier listing) brought is no new job: counted apart.
          return { ...report, ...cut, status: 'ok', postings: result.postings.length, new: created - duplicates, duplicates, held };
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          const retryAfterSeconds = error instanceof FeedFetchError ? error.retryAfterSeconds : undefined;
          if (!input.dryRun) await recordFeedFailure(db, { ...described, error: message, retryAfterSeconds, ...failureOf(error) });
          return { ...report, status: 'error', error: message };
        }
      }),
    ),
  );
  return {
    fetched: feeds.reduce((n, f) => n + (f.postings ?? 0), 0),
    new: feeds.reduce((n, f) => n + (f.new ?? 0), 0),
    held: feeds.reduce((n, f) => n + (f.held ?? 0), 0),
    feeds,
    dryRunPostings,
  };
}

/**
 * Null when the source is due; otherwise why not: a disabled source waits for its daily probe, and
 * none is asked before a Retry-After it was given nor before its minimum interval since the last fetch.
 */
function whyNotDue(source: ConfiguredSource, state: FeedState | null, now: Date): string | null {
  if (!state) return null;
  if (!isProbeDue(state.health, now)) return `disabled; next probe at ${state.health.nextProbeAt!.toISOString()}`;
  if (state.retryAfter && state.retryAfter > now) return `Retry-After until ${state.retryAfter.toISOString()}`;
  if (source.minIntervalMinutes > 0 && state.lastFetchedAt) {
    // A minute's slack: a scheduler calling every 15 minutes is not kept out by a few ms of jitter.
    const next = state.lastFetchedAt.getTime() + (source.minIntervalMinutes - 1) * 60_000;
    if (next > now.getTime()) return `minimum interval of ${source.minIntervalMinutes} min`;
  }
  return null;
}

function sourceUrl(source: ConfiguredSource): string | null {
  return typeof source.params.url === 'string' ? source.params.url : null;
}
