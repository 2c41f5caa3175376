import type { Firestore, QueryDocumentSnapshot } from 'firebase-admin/firestore';
import { runsCollection } from '../ledger/runs';
import { feedStatesCollection } from '../feeds/feed-state';
import { neverFetchedView, sortForTheOperator, sourceHealthView, SOURCES_LISTED, type SourceHealthView } from './source-health-view';
import { toDate, utcDay } from '../store/timestamps';
import { outboxCollection } from '../outbox/outbox-row';
import type { QuotaHit } from '../ledger/runs';
import { readDoor, type DoorView } from './auth-failures';
import { providerQuotaNotice, readRunQuota, type QuotaNotice } from './provider-quota';
import {
  countDigestItemsDue,
  countOutbox,
  countSubscribers,
  countPostingsWaiting,
  readFailedEmails,
  type FailedEmail,
  type OutboxCounts,
  type SubscriberCounts,
} from './read-status';
import { COLLECTIONS } from '../store/collections';
import type { ModelStats } from '../verdicts/judge-postings';
import { aiVerdictsState, readAiUsageToday, readRunModel, type AiSettings, type AiVerdictsState } from './ai-verdicts-state';
import { readDigestHourCoverage, type DigestHourCoverage } from './digest-hour-coverage';
import { readSchemaView, type SchemaView } from '../ledger/migrations/schema-view';
import type { ChannelRunStats } from '../ledger/runs';
import { channelsView, readChannelState, readRunChannels, type ChannelsView } from './channel-status';

/**
 * Everything the ops page shows at a glance, in one pass of bounded reads: every query has a
 * limit, every count is an aggregation (one read per 1,000 documents counted) or a counter
 * document read by id; the digest hours take a few passes of their own, bounded by the number of
 * (zone, hour) pairs, never by subscribers (digest-hour-coverage.ts).
 */
export type Dashboard = {
  now: Date;
  day: string;
  outbox: OutboxCounts;
  /** Subscribers by status, counted by aggregation (countSubscribers). */
  subscribers: SubscriberCounts;
  digestItemsDue: number;
  digestsSentToday: number;
  /** Postings still unmatched an hour after they were stored (see countPostingsWaiting). */
  postingsWaiting: number;
  /** Set while the newest runs say the provider's quota is used up (see providerQuotaNotice). */
  quota: QuotaNotice | null;
  failures: FailedEmail[];
  /**
   * Claims given up over the recent runs (the `runs` listed): subscribers whose delivery or digest
   * claim kept losing races for MAX_CLAIM_ATTEMPTS, summed. Each was left for the next run; a number
   * that keeps growing means a writer is fighting the cycle.
   */
  claimsGivenUpRecent: number;
  /** The AI verdict stage: off, or on with today's tokens against the budget and the recent runs' model stats summed. */
  ai: AiVerdictsState;
  /** The subscribers' local digest hours against the last day's runs (digest-hour-coverage.ts, with its own read bound). */
  digestHours: DigestHourCoverage;
  /** Newest first. */
  runs: RunSummary[];
  locks: LockView[];
  feeds: FeedView[];
  /** The store's schema version against the code's: runs refuse while it is behind (lib/ledger/migrations/). */
  schema: SchemaView;
  /** Who was refused at the doors with a secret, whether the login is locked, how much of the signup emails' hourly cap is used. */
  door: DoorView;
  /** Channels by kind and state, messages waiting, the listed runs' sends per kind, channels recently disabled as gone (channel-status.ts). */
  channels: ChannelsView;
};

export type RunSummary = {
  runId: string;
  trigger: string;
  /** `k-of-n` for a shard's run; null for a run over every subscriber. */
  shard: string | null;
  status: string;
  startedAt: Date | null;
  durationMs: number | null;
  jobsFetched: number;
  jobsNew: number;
  matches: number;
  emailsSent: number;
  failures: number;
  /** Subscribers whose claims this run gave up on (both claim steps; RunStats.claimsGivenUp). */
  claimsGivenUp: number;
  partial: boolean;
  /** The provider refused a send for quota in this run. */
  quota: QuotaHit | null;
  /** The run's model stage (RunStats.model); null while the stage was off. */
  model: ModelStats | null;
  /** The run's channel messages (RunStats.channels); null when its messages step did not run. */
  channels: ChannelRunStats | null;
  errors: string[];
};

export type LockView = { name: string; owner: string | null; acquiredAt: Date | null; expiresAt: Date | null; held: boolean };

/** A source's health (state, last success, failures, rate, time since its last new posting, what to do) and its last fetch. */
export type FeedView = SourceHealthView & {
  /** The last fetch: ok, not-modified, error; `never` for a configured source no run has fetched yet. */
  status: string;
  /** Postings it listed at its last full read. */
  lastItemCount: number | null;
};

export const DASHBOARD_LIMITS = { runs: 50, failures: 20, locks: 50, feeds: SOURCES_LISTED } as const;

/** A run's record also holds per-feed and per-phase detail; the page reads only what it shows. */
const RUN_STATS = ['jobsFetched', 'jobsNew', 'matches', 'emailsSent', 'failures'] as const;
const RUN_FIELDS = [
  'trigger',
  'shard',
  'status',
  'startedAt',
  'durationMs',
  'partial',
  'quota',
  'errors',
  ...RUN_STATS.map((s) => `stats.${s}`),
  'stats.claimsGivenUp',
  'stats.model',
  'stats.channels',
];

/** RunStats.claimsGivenUp summed over its steps; whatever the record holds that is not a count reads as 0. */
function givenUp(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  return Object.values(value).reduce((sum: number, n) => sum + (typeof n === 'number' ? n : 0), 0);
}

export async function readDashboard(
  db: Firestore,
  input: {
    now: Date;
    configuredFeeds?: ConfiguredFeed[];
    signupEmailsPerHour?: number;
    /** The verdict stage's settings (aiSettingsOf); null or absent while it is off, and then aiUsage is not read. */
    ai?: AiSettings | null;
    /** DIGEST_HOUR_UTC: the hour of subscribers who chose none. */
    digestHourUtc: number;
  },
): Promise<Dashboard> {
  const day = utcDay(input.now);
  const ai = input.ai ?? null;
  const [
    outbox,
    subscribers,
    digestItemsDue,
    digestsSentToday,
    postingsWaiting,
    failures,
    runs,
    locks,
    feeds,
    door,
    aiToday,
    digestHours,
    channels,
  ] = await Promise.all([
    countOutbox(db),
    countSubscribers(db),
    countDigestItemsDue(db, input.now),
    countDigestsSent(db, day),
    countPostingsWaiting(db, input.now),
    readFailedEmails(db, DASHBOARD_LIMITS.failures),
    runsCollection(db)
      .orderBy('startedAt', 'desc')
      .select(...RUN_FIELDS)
      .limit(DASHBOARD_LIMITS.runs)
      .get(),
    // Every lock there is: `scan`, and one per shard (`scan-0-of-2`, …).
    db.collection(COLLECTIONS.locks).limit(DASHBOARD_LIMITS.locks).get(),
    feedStatesCollection(db).limit(DASHBOARD_LIMITS.feeds).get(),
    readDoor(db, { now: input.now, signupEmailsPerHour: input.signupEmailsPerHour }),
    ai ? readAiUsageToday(db, day) : null,
    readDigestHourCoverage(db, { now: input.now, digestHourUtc: input.digestHourUtc }),
    readChannelState(db),
  ]);

  const feedViews = feedViewsOf(feeds.docs, input.configuredFeeds ?? [], input.now);
  const runViews = runs.docs.map(runSummaryOf);

  return {
    now: input.now,
    day,
    outbox,
    subscribers,
    digestItemsDue,
    digestsSentToday,
    postingsWaiting,
    quota: providerQuotaNotice(runViews),
    failures,
    claimsGivenUpRecent: runViews.reduce((sum, run) => sum + run.claimsGivenUp, 0),
    ai: aiVerdictsState({ settings: ai, today: aiToday, runModels: runViews.map((run) => run.model) }),
    digestHours,
    // After the reads above, not among them: one small read, and no promise left unawaited if those throw.
    schema: await readSchemaView(db),
    runs: runViews,
    locks: locks.docs.map((d) => lockViewOf(d, input.now)),
    // Disabled, failing and silent sources first: they are what the operator came for.
    feeds: sortForTheOperator(feedViews),
    door,
    channels: channelsView(channels, runViews),
  };
}

type ConfiguredFeed = { source: string; url: string; kind?: string; label?: string };

/** Every stored source's health and last fetch, and each configured source no run has fetched yet. */
function feedViewsOf(docs: QueryDocumentSnapshot[], configured: ConfiguredFeed[], now: Date): FeedView[] {
  const stored = new Set(docs.map((d) => d.id));
  const views: FeedView[] = docs.map((d) => ({
    ...sourceHealthView(d.id, d.data(), now),
    status: (d.get('lastStatus') as string | undefined) ?? (d.get('lastError') ? 'error' : 'ok'),
    lastItemCount: (d.get('lastItemCount') as number | undefined) ?? null,
  }));
  for (const feed of configured) {
    if (!stored.has(feed.source)) views.push({ ...neverFetchedView(feed), status: 'never', lastItemCount: null });
  }
  return views;
}

/** A run's record (the RUN_FIELDS of it) as the page shows it; whatever is missing reads as none. */
function runSummaryOf(d: QueryDocumentSnapshot): RunSummary {
  const stat = (name: (typeof RUN_STATS)[number]) => (d.get(`stats.${name}`) as number | undefined) ?? 0;
  return {
    runId: d.id,
    trigger: (d.get('trigger') as string | undefined) ?? '',
    shard: (d.get('shard') as string | null | undefined) ?? null,
    status: (d.get('status') as string | undefined) ?? 'unknown',
    startedAt: toDate(d.get('startedAt')),
    durationMs: (d.get('durationMs') as number | null | undefined) ?? null,
    jobsFetched: stat('jobsFetched'),
    jobsNew: stat('jobsNew'),
    matches: stat('matches'),
    emailsSent: stat('emailsSent'),
    failures: stat('failures'),
    claimsGivenUp: givenUp(d.get('stats.claimsGivenUp')),
    partial: d.get('partial') === true,
    quota: readRunQuota(d.get('quota')),
    model: readRunModel(d.get('stats.model')),
    channels: readRunChannels(d.get('stats.channels')),
    errors: (d.get('errors') as string[] | undefined) ?? [],
  };
}

/** A lock document: held while its expiry is still ahead. */
function lockViewOf(d: QueryDocumentSnapshot, now: Date): LockView {
  const expiresAt = toDate(d.get('expiresAt'));
  return {
    name: d.id,
    owner: (d.get('owner') as string | null | undefined) ?? null,
    acquiredAt: toDate(d.get('ts')),
    expiresAt,
    held: (expiresAt?.getTime() ?? 0) > now.getTime(),
  };
}

/**
 * Digests (scheduled and manual) the provider accepted since 00:00 UTC: one count() aggregation
 * over (kind ==, status ==, sentAt >=), which firestore.indexes.json carries a composite index for.
 */
export async function countDigestsSent(db: Firestore, day: string): Promise<number> {
  const since = new Date(`${day}T00:00:00.000Z`);
  const snap = await outboxCollection(db)
    .where('kind', '==', 'digest')
    .where('status', '==', 'sent')
    .where('sentAt', '>=', since)
    .count()
    .get();
  return snap.data().count;
}
