import { randomBytes } from 'node:crypto';
import type { Firestore } from 'firebase-admin/firestore';
import type { QuotaPeriod } from '../mail/send-outcome';
import { COLLECTIONS } from '../store/collections';

/** The cycle's steps, as the run record times them (docs/design.md §3). */
export type CyclePhase = 'fetch' | 'match' | 'claim' | 'flush' | 'dispatch' | 'messages' | 'repair';

/** Channel kinds as the run record names them (lib/channels/channel.ts): the ledger keeps its own words. */
type ChannelKindName = 'slack' | 'discord' | 'telegram' | 'webhook';

/**
 * The channels' share of a run (lib/messages/dispatch-messages.ts): messages sent, failed (given up,
 * unknown outcome or gone), dead (out of tries, or refused for good), skipped (an opt-out), tried
 * again later, channels disabled as gone; and sent and failed per channel kind.
 */
export type ChannelRunStats = {
  sent: number;
  failed: number;
  dead: number;
  skipped: number;
  retried: number;
  disabled: number;
  byChannel: Partial<Record<ChannelKindName, { sent: number; failed: number }>>;
};
/** What a claim step gives up on: deliveries (the claim phase) or due digests (the flush phase). */
export type ClaimsGivenUp = { deliveries: number; digests: number };

/** What a run records when the provider said its quota is used up: `runs/{runId}.quota`. */
export type QuotaHit = { period: QuotaPeriod; reachedAt: Date; resumesAt: Date; error: string };

/** The run's sender of the rows it created (lib/outbox/run-sender.ts): send batches handed, ms busy sending, ms its producers waited for it. */
export type SenderTiming = {
  sendBatches: number;
  busyMs: number;
  /** Waited for room in the sender's queue (claim, flush), and for its last sends at the dispatch step (drain). */
  waitedMs: { claim: number; flush: number; drain: number };
};

/** The AI verdict stage's counts for one run; `Reason` is why a pair fell back to keywords (lib/verdicts/score-once.ts). */
export type ModelStats<Reason extends string = string> = {
  calls: number;
  tokens: number;
  /** Pairs the model judged in this run, and pairs whose stored verdict was used. */
  judged: number;
  /** Judged below the subscriber's threshold: not sent. */
  notAFit: number;
  /** Pairs decided by keywords alone, by why (timeout, rate-limited, budget, …). */
  fallbacks: Partial<Record<Reason, number>>;
};

export type RunStats = {
  runId: string;
  trigger: string;
  /** `k-of-n` for a shard's run, null for a run over every subscriber. */
  shard: string | null;
  dryRun: boolean;
  jobsFetched: number;
  jobsNew: number;
  users: number;
  matches: number;
  instantEmails: number;
  instantDeliveries: number;
  queued: number;
  digests: number;
  emailsSent: number;
  /** Requests made to the mail provider (a batch of up to 100 emails is one). */
  providerRequests: number;
  skippedEmails: number;
  failures: number;
  /**
   * Subscribers whose claim kept losing races to concurrent writers for MAX_CLAIM_ATTEMPTS this run,
   * by what they claim (`deliveries`: the claim phase, `digests`: the flush phase); left for the
   * next run, which claims them.
   */
  claimsGivenUp: ClaimsGivenUp;
  partial: boolean;
  /** The provider refused a send for quota: when, until when (an estimate), and its error. The run sent nothing after it. */
  quota: QuotaHit | null;
  /**
   * The AI verdict stage's share of the run (null while it is off): model calls and tokens, pairs
   * judged and judged not a fit, and pairs decided by keywords alone by why (faults, budget…).
   */
  model: ModelStats | null;
  /**
   * The match index (lib/subscribers/match-index.ts): where this run's subscribers were read from
   * (null: no new posting, nobody read), and what its share of the repair sweep checked and fixed,
   * and how many fixes a full shard refused (null: no sweep due, or a shard other than the first).
   */
  matchIndex: {
    subscribersFrom: 'index' | 'users' | null;
    repair: { checked: number; drift: number; fixed: number; refused: number; finished: boolean } | null;
  };
  durationMs: number;
  /** Wall time of each phase, in ms. */
  phases: Partial<Record<CyclePhase, number>>;
  /**
   * The run's sender of the rows it created (lib/outbox/run-sender.ts), which works alongside the claim
   * and the flush: send batches (provider requests' worth of rows) it was handed, the ms from its first
   * send to its last record, and the ms the claim and the flush waited for room in its queue (part
   * of their phase times, above). Null before the claim ran.
   */
  sender: SenderTiming | null;
  /** The channels' messages this run dispatched; null when the step did not run (no channel sender, or the run stopped before it). */
  channels: ChannelRunStats | null;
  /** `held`: new postings past FEED_MAX_NEW_POSTINGS_PER_RUN, left for the next run. */
  feeds: {
    source: string;
    status: 'ok' | 'not-modified' | 'error' | 'skipped';
    postings?: number;
    held?: number;
    duplicates?: number;
    error?: string;
  }[];
  errors: string[];
};

/**
 * A run's stats as GET /api/cron answers them for a run that ran, read back from the JSON. The
 * quota's instants are strings there, not Dates, so it is left out.
 */
export type RunAnswer = Omit<RunStats, 'quota'>;

export function emptyRunStats(runId: string, trigger: string, shard: string | null = null): RunStats {
  return {
    runId,
    trigger,
    shard,
    dryRun: false,
    jobsFetched: 0,
    jobsNew: 0,
    users: 0,
    matches: 0,
    instantEmails: 0,
    instantDeliveries: 0,
    queued: 0,
    digests: 0,
    emailsSent: 0,
    providerRequests: 0,
    skippedEmails: 0,
    failures: 0,
    claimsGivenUp: { deliveries: 0, digests: 0 },
    partial: false,
    quota: null,
    model: null,
    matchIndex: { subscribersFrom: null, repair: null },
    durationMs: 0,
    phases: {},
    sender: null,
    channels: null,
    feeds: [],
    errors: [],
  };
}

/** Sortable by time, unique across machines. */
export const newRunId = (now: Date) => `${now.toISOString().replace(/[-:.]/g, '')}-${randomBytes(4).toString('hex')}`;

/** runs/{runId}: what ran, for the operator. Written when the run starts and again when it ends. */
export function runsCollection(db: Firestore) {
  return db.collection(COLLECTIONS.runs);
}

export async function recordRunStart(
  db: Firestore,
  input: { runId: string; trigger: string; shard: string | null; startedAt: Date; expireAt: Date },
) {
  await runsCollection(db)
    .doc(input.runId)
    .set({ trigger: input.trigger, shard: input.shard, status: 'running', startedAt: input.startedAt, expireAt: input.expireAt });
}

export async function recordRunEnd(db: Firestore, stats: RunStats, finishedAt: Date) {
  const { runId, partial, quota, durationMs, errors, ...rest } = stats;
  await runsCollection(db)
    .doc(runId)
    .set(
      { status: errors.length > 0 ? 'failed' : partial ? 'partial' : 'done', stats: rest, partial, quota, durationMs, errors, finishedAt },
      { merge: true },
    );
}
