import { claimDeliveries, type ClaimStats } from '../claims/claim-deliveries';
import { advanceClaimCursor, donePairs, passKey, readClaimCursor, saveClaimCursor, unreachedPairs } from '../claims/claim-cursor';
import { flushDueDigests, type FlushStats } from '../claims/flush-due-digests';
import { MAX_DESCRIPTION, type Posting } from '../feeds/posting';
import { postingsCollection, type StoredPosting } from '../feeds/postings-collection';
import { readMany } from '../store/create-documents';
import { addDays } from '../store/timestamps';
import { FEED_MAX_NEW_POSTINGS_PER_RUN, refreshFeeds, type FeedReport } from '../feeds/refresh-feeds';
import { loadPendingPostings, markPostingsMatched } from '../feeds/store-postings';
import { composeDailyDigest, composeInstantAlert } from '../mail/compose-email';
import { SEND_BATCH_SIZE } from '../mail/mailer';
import { matchPostings, type Candidate } from '../matching/match-postings';
import { dispatchOutbox } from '../outbox/dispatch-outbox';
import { addDispatchStats, emptyDispatchStats, type DispatchStats } from '../outbox/dispatch-stats';
import { SEND_MAX_ATTEMPTS } from '../outbox/send-rules';
import { AI_TIMEOUT_MS } from '../verdicts/ask-verdicts';
import { readActiveSubscribers, type IndexedSubscriber } from '../subscribers/match-index';
import { repairMatchIndex, type RepairResult } from '../subscribers/repair-match-index';
import { isDigestMode } from '../subscribers/subscriber';
import { describeNextDigest } from '../subscribers/describe-next-email';
import type { RunContext } from './run-context';
import { dispatchMessages, type MessageStats } from '../messages/dispatch-messages';
import { disableGoneChannel } from '../messages/channel-gone';

/** Matching reads pending postings in batches this big; the rest waits for the next run. */
export const POSTINGS_PER_RUN = 2_000;

/**
 * `unseen`: with the commit off, the new postings a run would have stored (at most
 * FEED_MAX_NEW_POSTINGS_PER_RUN per source), as it would have stored them; a run that commits
 * stores them and matching reads them back from jobs/, so for it this is empty.
 */
export type FetchResult = { fetched: number; new: number; held: number; feeds: FeedReport[]; unseen: StoredPosting[] };
/** `more`: pending postings are left past this run's batch. */
export type MatchResult = {
  postings: StoredPosting[];
  candidates: Candidate<StoredPosting, IndexedSubscriber>[];
  users: number;
  /** Where the subscribers were read from: the match index, or users/ while the index is not built yet. */
  subscribersFrom: 'index' | 'users' | null;
  more: boolean;
};
export type ClaimResult = ClaimStats;
export type FlushResult = FlushStats;
export type DispatchResult = DispatchStats & { providerRequests: number };
export type { RepairResult };

/** Fetch the feeds, store the new postings (jobs/, new ones only). A broken feed is recorded and logged, never fatal. */
export async function fetchFeeds(ctx: RunContext): Promise<FetchResult> {
  const { deps, startedAt, runId } = ctx;
  const { config } = deps;
  const feeds = await refreshFeeds(deps, {
    sources: ctx.sources,
    now: startedAt,
    runId,
    config,
    dryRun: !ctx.commit,
  });
  for (const feed of feeds.feeds.filter((f) => f.status === 'error'))
    deps.log('feed.failed', { runId, source: feed.source, error: feed.error });
  // A text past the cap loses its end to matching: rare enough (no real posting comes near it) to name each time.
  for (const feed of feeds.feeds.filter((f) => (f.textCut ?? 0) > 0))
    deps.log('posting.text_cut', { runId, source: feed.source, postings: feed.textCut, cap: MAX_DESCRIPTION });
  const unseen = ctx.commit ? [] : await notYetStored(ctx, feeds.dryRunPostings);
  return { fetched: feeds.fetched, new: ctx.commit ? feeds.new : unseen.length, held: feeds.held, feeds: feeds.feeds, unseen };
}

/** The postings a run would store from what the feeds returned: those not in jobs/ yet, capped per source, first in feed order. */
async function notYetStored(ctx: RunContext, fetched: Posting[]): Promise<StoredPosting[]> {
  const { db, config } = ctx.deps;
  const stored = await readMany(
    db,
    fetched.map((p) => postingsCollection(db).doc(p.id)),
  );
  const taken = new Map<string, number>();
  return fetched
    .filter((p, i) => {
      if (stored[i].exists) return false;
      taken.set(p.source, (taken.get(p.source) ?? 0) + 1);
      return taken.get(p.source)! <= (config.tuning?.FEED_MAX_NEW_POSTINGS_PER_RUN ?? FEED_MAX_NEW_POSTINGS_PER_RUN);
    })
    .map((p) => ({
      ...p,
      matchState: 'pending',
      runId: ctx.runId,
      fetchedAt: ctx.startedAt,
      expireAt: addDays(ctx.startedAt, config.RETENTION_DAYS),
    }));
}

/** Match the pending postings (a batch of POSTINGS_PER_RUN) against this run's active subscribers. */
export async function matchNewPostings(ctx: RunContext, fetched: FetchResult): Promise<MatchResult> {
  const { db, config } = ctx.deps;
  // One more than a run takes tells whether postings are left for the next run.
  const pending = await loadPendingPostings(db, {
    now: ctx.startedAt,
    retentionDays: config.RETENTION_DAYS,
    limit: POSTINGS_PER_RUN + 1,
    shard: ctx.shard,
  });
  // A dry run's new postings were not stored: they join the pending ones as the run's stored ones would.
  const loaded = [...new Map([...pending, ...fetched.unseen].map((p) => [p.id, p])).values()];
  const postings = loaded.slice(0, POSTINGS_PER_RUN);
  // No new posting, no subscriber read: a quiet run costs a handful of reads, not one per subscriber.
  const active = postings.length > 0 ? await readActiveSubscribers(db, ctx.shard) : null;
  const subscribers = active?.subscribers ?? [];
  // Daily subscribers' near misses (a keyword matched, an exclude or a pay minimum left it out) are kept for their digest's near-miss line.
  const candidates = matchPostings(postings, subscribers, { keepNearMisses: (s) => isDigestMode(s.mode) });
  return { postings, candidates, users: subscribers.length, subscribersFrom: active?.from ?? null, more: loaded.length > POSTINGS_PER_RUN };
}

/** Claim deliveries/{uid}_{jobId} (instant: with the alert's outbox row; daily: queued), then close the postings reached. */
export async function claimMatches(ctx: RunContext, match: MatchResult): Promise<ClaimResult> {
  const { deps, startedAt, runId } = ctx;
  const { db, config } = deps;
  const cursor = match.candidates.length > 0 ? await readClaimCursor(db, ctx.shardTag) : null;
  const claims = await claimDeliveries(
    {
      db,
      composeAlert: (subscriber, items) =>
        composeInstantAlert({
          subscriber,
          items: items.map(({ posting, score, reasons, judgement }) => ({
            posting,
            score,
            reasons,
            fit: judgement?.fit,
            fitReason: judgement?.fitReason,
            aiFallback: judgement?.fallback,
          })),
          settings: ctx.mail,
          now: startedAt,
        }),
      channelMessages: ctx.channelMessages,
      outOfTime: () => ctx.outOfTime(modelReserveMs(ctx)),
      failpoint: deps.failpoint,
      judge: ctx.judge,
      runSender: ctx.runSender,
    },
    {
      candidates: match.candidates,
      runId,
      now: startedAt,
      retentionDays: config.RETENTION_DAYS,
      digestHourUtc: config.DIGEST_HOUR_UTC,
      resumeAfter: cursor?.resumeAfter ?? null,
      done: donePairs(cursor),
      unreached: unreachedPairs(cursor),
      commit: ctx.commit,
    },
  );
  if (!ctx.commit) return claims;
  if (claims.gaveUp > 0) deps.log('claim.gave_up', { runId, step: 'deliveries', subscribers: claims.gaveUp });
  // Subscribers this run did not reach go first next run, and the pairs it claimed are not read again.
  const next = advanceClaimCursor(cursor, { ...claims, postings: match.postings.map(passKey) });
  if (next.cursor !== cursor) await saveClaimCursor(db, { shardTag: ctx.shardTag, cursor: next.cursor, runId, now: startedAt });
  // A posting is closed only when every subscriber it matched was reached (by every shard).
  const closedNow = new Set(next.closed);
  const closed = !claims.truncated && claims.gaveUp === 0 ? match.postings : match.postings.filter((p) => closedNow.has(passKey(p)));
  if (closed.length > 0) await markPostingsMatched(db, closed, ctx.shard);
  return claims;
}

/**
 * With the verdict stage on, a batch of subscribers to claim (or flush) is started only if a model call still
 * fits in the run's budget: rather than decide by keywords for want of time, the batch waits for
 * the next run, which finds the pairs unclaimed.
 */
const modelReserveMs = (ctx: RunContext) => (ctx.judge ? (ctx.deps.config.tuning?.AI_TIMEOUT_MS ?? AI_TIMEOUT_MS) : 0);

/** Claim the digests whose time has come, each on its subscriber's schedule: one outbox row each. */
export async function flushDigests(ctx: RunContext, claims: ClaimResult): Promise<FlushResult> {
  const { deps, startedAt, runId } = ctx;
  const { db, config } = deps;
  const flushed = await flushDueDigests(
    {
      db,
      composeDigest: (digest) =>
        composeDailyDigest({
          ...digest,
          nextDigest: describeNextDigest(digest.subscriber, startedAt, config.DIGEST_HOUR_UTC),
          settings: ctx.mail,
          now: startedAt,
        }),
      channelMessages: ctx.channelMessages,
      outOfTime: () => ctx.outOfTime(modelReserveMs(ctx)),
      failpoint: deps.failpoint,
      judge: ctx.judge,
      runSender: ctx.runSender,
    },
    {
      now: startedAt,
      runId,
      digestHourUtc: config.DIGEST_HOUR_UTC,
      maxItems: config.DIGEST_MAX_ITEMS,
      retentionDays: config.RETENTION_DAYS,
      shard: ctx.shard,
      // The run checked that the store is at the code's schema version: every queued item carries its bucket (migration 3).
      bucketed: true,
      commit: ctx.commit,
      // With the commit off, what the claim step queued exists only in its plan.
      planned: claims.planned,
    },
  );
  if (flushed.gaveUp > 0) deps.log('claim.gave_up', { runId, step: 'digests', subscribers: flushed.gaveUp });
  return flushed;
}

/**
 * Dispatch the outbox: lease → activity check → send (idempotency key) → record. The rows this run
 * created are already leased and on their way (run-sender.ts): wait for them, then send what earlier
 * runs left — rows whose sender died, and rows still pending.
 */
export async function dispatchEmails(ctx: RunContext): Promise<DispatchResult> {
  const { deps, runId } = ctx;
  const { config } = deps;
  const handed = ctx.runSender ? await ctx.runSender.drain() : emptyDispatchStats();
  const found = await dispatchOutbox(
    {
      db: deps.db,
      mailer: deps.mailer,
      limiter: ctx.limiter,
      failpoint: deps.failpoint,
      clock: ctx.clock,
      sleep: deps.sleep,
      outOfTime: ctx.outOfTime,
      log: deps.log,
      runId,
      quota: ctx.quota,
    },
    {
      runId,
      maxAttempts: config.tuning?.SEND_MAX_ATTEMPTS ?? SEND_MAX_ATTEMPTS,
      batchSize: config.tuning?.SEND_BATCH_SIZE ?? SEND_BATCH_SIZE,
      shard: ctx.shard,
    },
  );
  return { ...addDispatchStats(handed, found), providerRequests: ctx.limiter.requests() };
}

/**
 * Dispatch the channels' messages (lib/messages/dispatch-messages.ts), alongside the emails' dispatch
 * and apart from it: a slow or failing platform delays neither email nor another channel. Null
 * when this instance has no channel sender.
 */
export async function dispatchChannelMessages(ctx: RunContext): Promise<MessageStats | null> {
  const { deps, runId } = ctx;
  if (!deps.channelSender || !ctx.commit) return null;
  return dispatchMessages(
    {
      db: deps.db,
      channelSender: deps.channelSender,
      clock: ctx.clock,
      outOfTime: ctx.outOfTime,
      log: deps.log,
      failpoint: deps.failpoint,
      channelGone: async (row, reason) => {
        const now = ctx.clock();
        await disableGoneChannel(
          { db: deps.db, settings: ctx.mail, retentionDays: deps.config.RETENTION_DAYS },
          { row, reason, runId, now },
        );
      },
    },
    { runId, shard: ctx.shard },
  );
}

/**
 * The match index's repair sweep (build, then a daily check against users/), last so that it never
 * delays a send, and bounded by what is left of the run's time. The sweep covers every subscriber,
 * so of a sharded run's callers only the first does it.
 */
export async function repairIndex(ctx: RunContext): Promise<RepairResult> {
  if (ctx.shard && ctx.shard.index !== 0) return { ran: false, checked: 0, drift: 0, fixed: 0, refused: 0, finished: false };
  const repaired = await repairMatchIndex(ctx.deps.db, {
    now: ctx.startedAt,
    outOfTime: () => ctx.outOfTime(0),
    shards: ctx.deps.config.MATCH_INDEX_SHARDS,
    log: (event, fields) => ctx.deps.log(event, { runId: ctx.runId, ...fields }),
  });
  if (repaired.drift > 0)
    ctx.deps.log('match_index.drift', { runId: ctx.runId, drift: repaired.drift, fixed: repaired.fixed, refused: repaired.refused });
  return repaired;
}
