import type { Firestore } from 'firebase-admin/firestore';
import { runsCollection } from '../ledger/runs';
import { postingsCollection } from '../feeds/postings-collection';
import { deliveriesCollection } from '../ledger/delivery';
import { toDate, utcDay } from '../store/timestamps';
import { outboxCollection, type OutboxStatus } from '../outbox/outbox-row';
import { providerQuotaNotice, readRunQuota, type QuotaNotice } from './provider-quota';
import { COLLECTIONS } from '../store/collections';
import { readSourceHealth, type SourceHealthView } from './source-health-view';
import { readAiUsageToday, readRunModel, sumRunModels, type AiUsageToday, type RecentModelStats } from './ai-verdicts-state';
import { readDigestHourCoverage, type DigestHourCoverage } from './digest-hour-coverage';
import { readMatchIndexStatus, type MatchIndexStatus } from './match-index-status';
import { readSchemaView, type SchemaView } from '../ledger/migrations/schema-view';
import { subscribersCollection, subscriberStatuses, type SubscriberStatus } from '../subscribers/subscriber';
import { channelsView, readChannelState, readRunChannels, type ChannelsView } from './channel-status';

/** What an operator asks first: what is due, what failed, what ran, and who holds the locks. */
export type OpsStatus = {
  day: string;
  outbox: Record<Exclude<OutboxStatus, 'sent' | 'skipped'>, number>;
  /** Queued deliveries due in a digest today or earlier. */
  digestItemsDue: number;
  /** Postings stored over STALE_POSTING_MS ago and still not matched by every shard: matching is stuck or a shard is not called. */
  postingsWaiting: number;
  /** The subscribers' local digest hours against the last day's runs: those no run served (digest-hour-coverage.ts). */
  digestHours: DigestHourCoverage;
  /** The match index: built or not, drift against active subscribers, the fullest shard, the last repair sweep. */
  matchIndex: MatchIndexStatus;
  /** The store's schema version against the code's: runs refuse while it is behind. */
  schema: SchemaView;
  /** Set while the newest runs say the provider's quota is used up (see providerQuotaNotice). */
  quota: QuotaNotice | null;
  /** Failed and dead emails, newest first (at most `limit`). */
  failures: {
    emailKey: string;
    uid: string;
    kind: string;
    status: string;
    attempts: number;
    lastError: string | null;
    createdAt: Date | null;
    /** Times an operator put it back to pending (lib/ops/retry-email.ts). */
    retries: number;
  }[];
  runs: {
    runId: string;
    status: string;
    trigger: string;
    /** `k-of-n` for a shard's run. */
    shard: string | null;
    startedAt: Date | null;
    durationMs: number | null;
    emails: number;
    errors: string[];
  }[];
  /**
   * What the AI verdict stage recorded: today's tokens and calls (aiUsage/{day}) and the model
   * stats of every run read, summed. The CLI reads no app configuration, so it cannot say whether
   * the stage is on now nor what its limits are: only what was used.
   */
  ai: { today: AiUsageToday; recent: RecentModelStats };
  /** Every source feeds/ records, disabled, failing and silent first, each with what to do. */
  sources: SourceHealthView[];
  /**
   * Channels by kind and state, messages waiting, channels recently disabled as gone, and what the
   * runs read (the newest QUOTA_LOOKBACK_RUNS, or `limit` if more) sent and failed per kind.
   */
  channels: ChannelsView;
  /** `scan`, and one per shard (`scan-k-of-n`), by name. */
  locks: { name: string; owner: string; expiresAt: Date | null; held: boolean }[];
};

/** More lock documents than this would mean more shards than a run allows. */
const MAX_LOCKS = 100;
/** Runs read to tell whether the provider's quota is still reached, however few are listed. */
export const QUOTA_LOOKBACK_RUNS = 20;

export const OPEN_STATUSES = ['held', 'pending', 'sending', 'failed', 'dead'] as const;
export type OutboxCounts = OpsStatus['outbox'];
export type FailedEmail = OpsStatus['failures'][number];

/** Counts come from aggregation queries (one read per 1,000 documents counted), never by fetching the rows. */
export async function readOpsStatus(db: Firestore, input: { now: Date; limit?: number; digestHourUtc: number }): Promise<OpsStatus> {
  const day = utcDay(input.now);
  const limit = input.limit ?? 5;
  const [outbox, digestItemsDue, postingsWaiting, failures, runs, locks, aiToday, sources, digestHours, matchIndex, channels] =
    await Promise.all([
      countOutbox(db),
      countDigestItemsDue(db, input.now),
      countPostingsWaiting(db, input.now),
      readFailedEmails(db, limit),
      runsCollection(db).orderBy('startedAt', 'desc').limit(Math.max(limit, QUOTA_LOOKBACK_RUNS)).get(),
      db.collection(COLLECTIONS.locks).limit(MAX_LOCKS).get(),
      readAiUsageToday(db, day),
      readSourceHealth(db, input.now),
      readDigestHourCoverage(db, { now: input.now, digestHourUtc: input.digestHourUtc }),
      readMatchIndexStatus(db),
      readChannelState(db),
    ]);
  return {
    day,
    outbox,
    digestItemsDue,
    postingsWaiting,
    digestHours,
    matchIndex,
    // After the reads above, not among them: one small read, and no promise left unawaited if those throw.
    schema: await readSchemaView(db),
    quota: providerQuotaNotice(
      runs.docs.map((d) => ({
        runId: d.id,
        quota: readRunQuota(d.get('quota')),
        emailsSent: (d.get('stats.emailsSent') as number | undefined) ?? 0,
      })),
    ),
    failures,
    ai: { today: aiToday, recent: sumRunModels(runs.docs.map((d) => readRunModel(d.get('stats.model')))) },
    runs: runs.docs.slice(0, limit).map((d) => ({
      runId: d.id,
      status: (d.get('status') as string | undefined) ?? 'unknown',
      trigger: (d.get('trigger') as string | undefined) ?? '',
      shard: (d.get('shard') as string | null | undefined) ?? null,
      startedAt: toDate(d.get('startedAt')),
      durationMs: (d.get('durationMs') as number | null | undefined) ?? null,
      emails: (d.get('stats.emailsSent') as number | undefined) ?? 0,
      errors: (d.get('errors') as string[] | undefined) ?? [],
    })),
    sources,
    channels: channelsView(
      channels,
      runs.docs.map((d) => ({ startedAt: toDate(d.get('startedAt')), channels: readRunChannels(d.get('stats.channels')) })),
    ),
    locks: locks.docs.map((lock) => ({
      name: lock.id,
      owner: lock.get('owner') as string,
      expiresAt: toDate(lock.get('expiresAt')),
      held: (toDate(lock.get('expiresAt'))?.getTime() ?? 0) > input.now.getTime(),
    })),
  };
}

/** The outbox by open state: one count() aggregation each. */
export async function countOutbox(db: Firestore): Promise<OutboxCounts> {
  const counts = await Promise.all(
    OPEN_STATUSES.map(async (status) => (await outboxCollection(db).where('status', '==', status).count().get()).data().count),
  );
  return Object.fromEntries(OPEN_STATUSES.map((status, i) => [status, counts[i]])) as OutboxCounts;
}

/** Subscribers by status: confirmed and receiving (active), awaiting confirmation, paused, opted out. */
export type SubscriberCounts = Record<SubscriberStatus, number>;

/**
 * How many subscribers there are, by status: one count() aggregation per status (one read per
 * 1,000 counted, over the automatic single-field index on `status`), never a read of the users.
 */
export async function countSubscribers(db: Firestore): Promise<SubscriberCounts> {
  const counts = await Promise.all(
    subscriberStatuses.map(async (status) => (await subscribersCollection(db).where('status', '==', status).count().get()).data().count),
  );
  return Object.fromEntries(subscriberStatuses.map((status, i) => [status, counts[i]])) as SubscriberCounts;
}

/** Queued deliveries due in a digest by `now`: one count() aggregation over (status, digestDueAt), the flush's own index. */
export async function countDigestItemsDue(db: Firestore, now: Date): Promise<number> {
  return (await deliveriesCollection(db).where('status', '==', 'queued').where('digestDueAt', '<=', now).count().get()).data().count;
}

/** Runs every 15 minutes match a posting within one or two runs; an hour means something is wrong. */
export const STALE_POSTING_MS = 3_600_000;

/**
 * Postings stored over an hour ago and still `pending`: one count() over (matchState ==,
 * fetchedAt <), which firestore.indexes.json carries an index for. Non-zero means runs keep
 * failing or stopping before their claims end, or a shard (`?shard=k&shards=n`) is not being called.
 */
export async function countPostingsWaiting(db: Firestore, now: Date): Promise<number> {
  const before = new Date(now.getTime() - STALE_POSTING_MS);
  return (await postingsCollection(db).where('matchState', '==', 'pending').where('fetchedAt', '<', before).count().get()).data().count;
}

/** The newest failed and dead emails, without their payloads (index: status, createdAt desc). */
export async function readFailedEmails(db: Firestore, limit: number): Promise<FailedEmail[]> {
  const snap = await outboxCollection(db)
    .where('status', 'in', ['failed', 'dead'])
    .orderBy('createdAt', 'desc')
    .select('uid', 'kind', 'status', 'attempts', 'lastError', 'createdAt', 'retries')
    .limit(limit)
    .get();
  return snap.docs.map((d) => ({
    emailKey: d.id,
    uid: (d.get('uid') as string | undefined) ?? '',
    kind: (d.get('kind') as string | undefined) ?? '',
    status: (d.get('status') as string | undefined) ?? '',
    attempts: (d.get('attempts') as number | undefined) ?? 0,
    lastError: (d.get('lastError') as string | null | undefined) ?? null,
    createdAt: toDate(d.get('createdAt')),
    retries: (d.get('retries') as number | undefined) ?? 0,
  }));
}
