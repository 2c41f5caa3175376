import { flushDueDigests } from '../claims/flush-due-digests';
import { parseFeedUrls } from '../feeds/feed-source';
import { refreshFeeds } from '../feeds/refresh-feeds';
import { loadPendingPostings, markPostingsMatched } from '../feeds/store-postings';
import { readClaimCursor, saveClaimCursor } from '../claims/claim-cursor';
import { claimDeliveries } from '../claims/claim-deliveries';
import { addDays } from '../store/timestamps';
import { composeDailyDigest, composeInstantAlert, type MailSettings } from '../mail/compose-email';
import { createSendLimiter } from '../mail/send-limiter';
import { matchPostings } from '../matching/match-postings';
import { dispatchOutbox } from '../outbox/dispatch-outbox';
import { createQuotaPause } from '../outbox/quota-pause';
import { listActiveSubscribers } from '../subscribers/subscriber';
import type { CycleDeps, CycleOptions } from './cycle-deps';
import type { ClaimStep, CyclePhase } from '../ops/runs';
import { acquireLock } from './lock';
import { previewCycle, type CyclePreview } from './preview-cycle';
import { ownsSubscriber, shardTag } from '../runtime/shard';
import { emptyRunStats, newRunId, recordRunEnd, recordRunStart, type RunStats } from '../ops/runs';

export type CycleResult =
  | ({ kind: 'ran' } & RunStats)
  | { kind: 'skipped'; skipped: string; lockOwner: string | null; lockExpiresAt: string | null }
  | ({ kind: 'preview' } & CyclePreview);

/** Matching reads pending postings in slices this big; the rest waits for the next run. */
const POSTINGS_PER_RUN = 2_000;

/**
 * One cycle, top to bottom as DESIGN §3 tells it:
 *   lock → fetch feeds, store new postings → match them against active subscribers →
 *   claim deliveries (instant: with their alert's outbox row; daily: queued) →
 *   claim today's digests when due → dispatch the outbox → record the run, release the lock.
 * Every step is safe to repeat: the ledger, not the lock, is what keeps a second run silent.
 */
export async function runCycle(deps: CycleDeps, options: CycleOptions): Promise<CycleResult> {
  const { db, config } = deps;
  const startedWall = deps.wallClock();
  const startedAt = options.now ?? new Date(startedWall);
  // With ?now= the run's clock starts there and moves with real time, so leases still age.
  const clock = () => new Date(startedAt.getTime() + (deps.wallClock() - startedWall));
  const runId = options.runId ?? newRunId(startedAt);
  const sources = parseFeedUrls(config.FEED_URLS);
  const mail: MailSettings = { appUrl: config.APP_URL, from: config.MAIL_FROM, linkSecret: config.LINK_SECRET };

  const { shard } = options;
  if (options.dryRun)
    return { kind: 'preview', ...(await previewCycle(deps, { now: startedAt, sources, runId, shard, postingsPerRun: POSTINGS_PER_RUN })) };

  const lockName = options.lockName ?? (shard ? `scan-${shardTag(shard)}` : 'scan');
  const lock = await acquireLock(db, { name: lockName, owner: runId, now: startedAt, ttlMs: config.LOCK_TTL_MS });
  if (!lock.acquired) {
    deps.log('run.skipped', { runId, reason: 'previous run in flight', lockOwner: lock.owner });
    return {
      kind: 'skipped',
      skipped: 'previous run in flight',
      lockOwner: lock.owner,
      lockExpiresAt: lock.expiresAt?.toISOString() ?? null,
    };
  }

  const stats = emptyRunStats(runId, options.trigger, shard ? shardTag(shard) : null);
  const phase = async <T>(name: CyclePhase, step: () => Promise<T>): Promise<T> => {
    const started = deps.wallClock();
    try {
      return await (deps.trace ? deps.trace(name, step) : step());
    } finally {
      stats.phases[name] = deps.wallClock() - started;
    }
  };
  // Both claim steps give up on contention the same way: counted, logged, the run partial; the next run claims the rest.
  const giveUpVisibly = (step: ClaimStep, subscribers: number) => {
    if (subscribers === 0) return;
    stats.claimsGivenUp[step] += subscribers;
    stats.partial = true;
    deps.log('claim.gave_up', { runId, step, subscribers });
  };
  const outOfTime = (reserveMs = 0) => deps.wallClock() - startedWall + reserveMs > config.RUN_BUDGET_MS;
  try {
    await recordRunStart(db, {
      runId,
      trigger: options.trigger,
      shard: stats.shard,
      startedAt,
      expireAt: addDays(startedAt, config.RETENTION_DAYS),
    });

    const feeds = await phase('fetch', () =>
      refreshFeeds(deps, {
        sources,
        now: startedAt,
        runId,
        retentionDays: config.RETENTION_DAYS,
        timeoutMs: config.FEED_TIMEOUT_MS,
        maxBytes: config.FEED_MAX_BYTES,
        allowPrivateAddresses: config.FEED_ALLOW_PRIVATE_ADDRESSES,
        maxNewPerSource: config.FEED_MAX_NEW_POSTINGS_PER_RUN,
        appUrl: config.APP_URL,
        dryRun: false,
      }),
    );
    stats.jobsFetched = feeds.fetched;
    stats.jobsNew = feeds.new;
    // Postings a source could not add this run are the next run's work.
    stats.partial ||= feeds.held > 0;
    stats.feeds = feeds.feeds.map(({ source, status, postings, held, error }) => ({
      source,
      status,
      postings,
      held: held || undefined,
      error,
    }));
    stats.failures += feeds.feeds.filter((f) => f.status === 'error').length;
    for (const feed of feeds.feeds.filter((f) => f.status === 'error'))
      deps.log('feed.failed', { runId, source: feed.source, error: feed.error });
    await deps.failpoint('after-postings-stored');

    const { postings, candidates } = await phase('match', async () => {
      // One more than a run takes tells whether postings are left for the next run.
      const loaded = await loadPendingPostings(db, {
        now: startedAt,
        retentionDays: config.RETENTION_DAYS,
        limit: POSTINGS_PER_RUN + 1,
        shard,
      });
      stats.partial ||= loaded.length > POSTINGS_PER_RUN;
      const postings = loaded.slice(0, POSTINGS_PER_RUN);
      // No new posting, no subscriber read: a quiet run costs a handful of reads, not one per subscriber.
      const subscribers = postings.length > 0 ? (await listActiveSubscribers(db)).filter((s) => ownsSubscriber(shard, s.id)) : [];
      stats.users = subscribers.length;
      return { postings, candidates: matchPostings(postings, subscribers) };
    });

    const claims = await phase('claim', async () => {
      const resumeAfter = candidates.length > 0 ? await readClaimCursor(db, stats.shard) : null;
      const claims = await claimDeliveries(
        {
          db,
          composeAlert: (subscriber, items) => composeInstantAlert({ subscriber, items, settings: mail, now: startedAt }),
          outOfTime,
          failpoint: deps.failpoint,
        },
        { candidates, runId, now: startedAt, retentionDays: config.RETENTION_DAYS, digestHourUtc: config.DIGEST_HOUR_UTC, resumeAfter },
      );
      // Subscribers this run did not reach go first next run.
      if (claims.resumeAfter !== resumeAfter)
        await saveClaimCursor(db, { shardTag: stats.shard, resumeAfter: claims.resumeAfter, runId, now: startedAt });
      // A posting is closed only when every subscriber it matched was reached (by every shard).
      if (!claims.truncated && claims.gaveUp === 0)
        await markPostingsMatched(
          db,
          postings.map((p) => p.id),
          shard,
        );
      return claims;
    });
    stats.matches = claims.matches;
    stats.partial ||= claims.truncated;
    giveUpVisibly('claim', claims.gaveUp);
    stats.instantDeliveries = claims.instantDeliveries;
    stats.queued = claims.queued;
    await deps.failpoint('after-claim');

    const digests = await phase('flush', () =>
      flushDueDigests(
        {
          db,
          composeDigest: (digest) => composeDailyDigest({ ...digest, settings: mail, now: startedAt }),
          outOfTime,
          failpoint: deps.failpoint,
        },
        {
          now: startedAt,
          runId,
          digestHourUtc: config.DIGEST_HOUR_UTC,
          maxItems: config.DIGEST_MAX_ITEMS,
          retentionDays: config.RETENTION_DAYS,
          shard,
        },
      ),
    );
    stats.partial ||= digests.truncated;
    giveUpVisibly('flush', digests.gaveUp);
    await deps.failpoint('after-digest-claim');

    // Shards called together share the provider's rate: each sends at its share of it. Every
    // request also passes the process's limiter, which the signups' emails share.
    const limiter = createSendLimiter({
      ratePerSec: config.SEND_RATE_PER_SEC / (shard?.count ?? 1),
      concurrency: config.SEND_CONCURRENCY,
      sleep: deps.sleep,
      via: deps.sendLimiter,
    });
    const sent = await phase('dispatch', () =>
      dispatchOutbox(
        {
          db,
          mailer: deps.mailer,
          limiter,
          failpoint: deps.failpoint,
          clock,
          sleep: deps.sleep,
          outOfTime,
          log: deps.log,
          runId,
          quota: createQuotaPause(),
        },
        { runId, maxAttempts: config.SEND_MAX_ATTEMPTS, batchSize: config.SEND_BATCH_SIZE, shard },
      ),
    );
    stats.instantEmails = sent.sent.alert;
    stats.digests = sent.sent.digest;
    stats.emailsSent = Object.values(sent.sent).reduce((a, b) => a + b, 0);
    stats.providerRequests = limiter.requests();
    stats.skippedEmails = sent.skipped + claims.skipped;
    stats.failures += sent.failed + sent.dead;
    stats.partial ||= sent.deferred > 0;
    stats.quota = sent.quota;
    return { kind: 'ran', ...finish(stats, deps, startedWall) };
  } catch (error) {
    stats.errors.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    throw error;
  } finally {
    finish(stats, deps, startedWall);
    await recordRunEnd(db, stats, clock()).catch((e) => deps.log('run.record_failed', { runId, error: String(e) }));
    await lock.handle.release().catch((e) => deps.log('lock.release_failed', { runId, error: String(e) }));
    deps.log(stats.errors.length > 0 ? 'run.failed' : 'run.done', { ...stats, feeds: undefined });
  }
}

function finish(stats: RunStats, deps: CycleDeps, startedWall: number): RunStats {
  stats.durationMs = deps.wallClock() - startedWall;
  return stats;
}
