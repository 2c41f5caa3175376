import type { ConfiguredSource } from '../feeds/source-adapter';
import { configuredSources } from '../feeds/source-list';
import type { MailSettings } from '../mail/compose-email';
import { SEND_BATCH_SIZE } from '../mail/mailer';
import { createSendLimiter, SEND_CONCURRENCY, type SendLimiter } from '../mail/send-limiter';
import { newRunId, type CyclePhase } from '../ledger/runs';
import { createRunSender, type RunSender } from '../outbox/run-sender';
import { createQuotaPause, type QuotaPause } from '../outbox/quota-pause';
import { SEND_MAX_ATTEMPTS } from '../outbox/send-rules';
import { shardTag, type Shard } from '../runtime/shard';
import { createJudge, type Judge } from '../verdicts/judge-postings';
import type { CycleDeps, CycleOptions } from './cycle-deps';
import { subscriberMessagesOf, type SubscriberMessagesOf } from '../messages/subscriber-messages';
import { addDays } from '../store/timestamps';

/**
 * What every step of one cycle shares, built once when the run starts: its clock and id, its part
 * of the subscribers, its send limiter and quota pause, its time budget, and whether it commits.
 * A dry run (?dryRun=1) is the same context with `commit` off: the steps plan exactly as a run
 * does and write nothing.
 */
export type RunContext = {
  deps: CycleDeps;
  runId: string;
  trigger: string;
  /** The run's clock at its start: with ?now= the override, else the wall clock. Every decision uses it. */
  startedAt: Date;
  /** The run's clock now: it starts at `startedAt` and moves with real time, so leases still age. */
  clock: () => Date;
  /** Real elapsed time since the start, in ms (the budget is wall time, whatever ?now= says). */
  elapsedMs: () => number;
  /** True once the run's budget (RUN_BUDGET_MS) is spent, or would be after `reserveMs` more. */
  outOfTime: (reserveMs?: number) => boolean;
  shard: Shard | undefined;
  /** `k-of-n` for a shard's run, null for a run over every subscriber. */
  shardTag: string | null;
  sources: ConfiguredSource[];
  mail: MailSettings;
  /** Off for the dry run: no claim, no mark, no cursor, no send — the planners still run. */
  commit: boolean;
  /**
   * Shards called together share the provider's rate: each sends only in its own slots of it.
   * Every request also passes the process's limiter, which the signups' emails share.
   */
  limiter: SendLimiter;
  quota: QuotaPause;
  /**
   * The sender of the rows this run creates (the claim's alerts, the flush's digests): they are
   * created leased and sent as they land (run-sender.ts). Null for a dry run, which creates nothing.
   */
  runSender: RunSender | null;
  /**
   * The optional AI verdict stage for this run (its call cap, its counters), or null: the stage is
   * off, or the commit is (a dry run asks no model, and decides by keywords alone).
   */
  judge: Judge | null;
  /** Subscribers' channel messages, with this run's links, clock and retention (lib/messages/subscriber-messages.ts). */
  channelMessages: SubscriberMessagesOf;
  /** Wall time of each step, as the run record keeps it. */
  phases: Partial<Record<CyclePhase, number>>;
  /** Runs one step, timed into `phases` (and traced, when the caller traces). */
  phase: <T>(name: CyclePhase, step: () => Promise<T>) => Promise<T>;
};

export function createRunContext(deps: CycleDeps, options: CycleOptions): RunContext {
  const { config } = deps;
  const startedWall = deps.wallClock();
  const startedAt = options.now ?? new Date(startedWall);
  const elapsedMs = () => deps.wallClock() - startedWall;
  const phases: RunContext['phases'] = {};
  const outOfTime = (reserveMs = 0) => elapsedMs() + reserveMs > config.RUN_BUDGET_MS;
  const runId = options.runId ?? newRunId(startedAt);
  const clock = () => new Date(startedAt.getTime() + elapsedMs());
  // A shard sends only in its own slots of the provider's rate (send-limiter.ts), so the shards
  // together stay inside it without talking to each other; the slots are on the wall clock they share.
  const limiter = createSendLimiter({
    ratePerSec: config.SEND_RATE_PER_SEC,
    concurrency: config.tuning?.SEND_CONCURRENCY ?? SEND_CONCURRENCY,
    now: deps.wallClock,
    sleep: deps.sleep,
    via: deps.sendLimiter,
    slots: options.shard ? { index: options.shard.index, count: options.shard.count } : undefined,
  });
  const quota = createQuotaPause();
  const runSender = options.dryRun
    ? null
    : createRunSender(
        {
          db: deps.db,
          mailer: deps.mailer,
          limiter,
          failpoint: deps.failpoint,
          clock,
          sleep: deps.sleep,
          outOfTime,
          log: deps.log,
          runId,
          quota,
        },
        {
          runId,
          maxAttempts: config.tuning?.SEND_MAX_ATTEMPTS ?? SEND_MAX_ATTEMPTS,
          batchSize: config.tuning?.SEND_BATCH_SIZE ?? SEND_BATCH_SIZE,
          lane: options.shard ? shardTag(options.shard) : 'run',
        },
      );
  return {
    deps,
    runId,
    trigger: options.trigger,
    startedAt,
    clock,
    elapsedMs,
    outOfTime,
    shard: options.shard,
    shardTag: options.shard ? shardTag(options.shard) : null,
    sources: configuredSources(config),
    mail: mailSettingsOf(config),
    commit: !options.dryRun,
    channelMessages: channelMessagesOf(config, runId, startedAt),
    limiter,
    quota,
    runSender,
    judge:
      deps.verdictClient && !options.dryRun
        ? createJudge({
            db: deps.db,
            client: deps.verdictClient,
            config,
            clock,
            log: deps.log,
            runId,
            // The run's budget includes model time: a call still in flight when it is spent is cut
            // short (a `timeout`: keywords decide), and a 429 is waited out only if the wait fits.
            signal: AbortSignal.timeout(Math.max(1, config.RUN_BUDGET_MS - elapsedMs())),
            canWait: (ms) => !outOfTime(ms + deps.verdictClient!.timeoutMs),
          })
        : null,
    phases,
    phase: timedPhase(deps, phases),
  };
}

/** Runs one step, its wall time kept in `phases` (and traced, when the caller traces). */
const timedPhase =
  (deps: CycleDeps, phases: RunContext['phases']): RunContext['phase'] =>
  async (name, step) => {
    const started = deps.wallClock();
    try {
      return await (deps.trace ? deps.trace(name, step) : step());
    } finally {
      phases[name] = deps.wallClock() - started;
    }
  };

const mailSettingsOf = (config: CycleDeps['config']) => ({
  appUrl: config.APP_URL,
  from: config.MAIL_FROM,
  linkSecret: config.LINK_SECRET,
});
const channelMessagesOf = (config: CycleDeps['config'], runId: string, now: Date) =>
  subscriberMessagesOf({ settings: mailSettingsOf(config), runId, now, expireAt: addDays(now, config.RETENTION_DAYS) });
