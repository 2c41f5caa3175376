import { addDays } from '../store/timestamps';
import { checkSchema, SchemaBehind } from '../ledger/migrations/check-schema';
import { recordRunEnd, recordRunStart, type RunStats } from '../ledger/runs';
import type { CycleDeps, CycleOptions } from './cycle-deps';
import {
  claimMatches,
  dispatchChannelMessages,
  dispatchEmails,
  fetchFeeds,
  flushDigests,
  matchNewPostings,
  repairIndex,
} from './cycle-steps';
import { describeError, foldRunStats, type StepResults } from './fold-run-stats';
import { acquireLock } from './lock';
import { dryRunCycle, type DryRunReport } from './dry-run';
import { createRunContext, type RunContext } from './run-context';

/** How long the scan lock outlives a holder that died: longer than any run (Vercel's wall is 300 s), lapsed by the next 15-minute schedule. */
export const LOCK_TTL_MS = 10 * 60_000;

export type CycleResult =
  | ({ kind: 'ran' } & RunStats)
  | { kind: 'skipped'; skipped: string; lockOwner: string | null; lockExpiresAt: string | null }
  | ({ kind: 'dry-run' } & DryRunReport);

/**
 * One cycle, top to bottom as docs/design.md §3 tells it:
 *   lock → check the store's schema version (refuse when behind) → fetch feeds, store new postings → match them against active subscribers →
 *   claim deliveries (instant: with their alert's outbox row; daily: queued; with each, the
 *   instant channels' messages) → flush today's digests when due (with the digest channels'
 *   messages) → dispatch the outbox, and the channels' messages alongside → repair the match index
 *   (a bounded share of its sweep) → record the run, release the lock.
 * Every step is safe to repeat: the ledger, not the lock, is what keeps a second run silent.
 * Each step returns what it did; the run's stats are folded from those results once, at the end.
 */
export async function runCycle(deps: CycleDeps, options: CycleOptions): Promise<CycleResult> {
  const ctx = createRunContext(deps, options);
  const { db, config } = deps;
  const { runId, startedAt } = ctx;
  // ?dryRun=1: the same steps with the commit off — no lock, no run record, no writes, no sends.
  if (!ctx.commit) {
    const schema = await checkSchema(db, { now: startedAt, stamp: false });
    if (schema.standing === 'behind') throw new SchemaBehind(schema);
    return {
      kind: 'dry-run',
      ...(await dryRunCycle(ctx)),
    };
  }

  const lockName = options.lockName ?? (ctx.shardTag ? `scan-${ctx.shardTag}` : 'scan');
  const lock = await acquireLock(db, { name: lockName, owner: runId, now: startedAt, ttlMs: config.tuning?.LOCK_TTL_MS ?? LOCK_TTL_MS });
  if (!lock.acquired) {
    deps.log('run.skipped', { runId, reason: 'previous run in flight', lockOwner: lock.owner });
    return {
      kind: 'skipped',
      skipped: 'previous run in flight',
      lockOwner: lock.owner,
      lockExpiresAt: lock.expiresAt?.toISOString() ?? null,
    };
  }

  const steps: StepResults = {};
  const failed = await runSteps(ctx, steps).then(
    () => null,
    (error: unknown) => ({ error }),
  );
  // Sends already started finish (or are fenced) before the run records itself, even after a throw.
  await ctx.runSender?.settle();
  // The model's usage is recorded once per run, with what it reserved of the day's tokens given back.
  await ctx.judge?.record();
  const stats = foldRunStats(ctx, steps, failed ? [describeError(failed.error)] : []);
  await recordRunEnd(db, stats, ctx.clock()).catch((e) => deps.log('run.record_failed', { runId, error: String(e) }));
  await lock.handle.release().catch((e) => deps.log('lock.release_failed', { runId, error: String(e) }));
  deps.log(failed ? 'run.failed' : 'run.done', { ...stats, feeds: undefined });
  if (failed) throw failed.error;
  return { kind: 'ran', ...stats };
}

/** The steps under the lock, each result kept in `steps` as it lands (a step that throws leaves the ones before it). */
async function runSteps(ctx: RunContext, steps: StepResults): Promise<void> {
  const { db, config, failpoint } = ctx.deps;
  const { runId, startedAt } = ctx;
  // Before the run's first write: on a fresh store, the stamp is the first thing a run writes (check-schema.ts).
  const schema = await checkSchema(db, { now: startedAt, stamp: true });
  await recordRunStart(db, {
    runId,
    trigger: ctx.trigger,
    shard: ctx.shardTag,
    startedAt,
    expireAt: addDays(startedAt, config.RETENTION_DAYS),
  });
  // Behind: refused, never migrated in a run; the run is recorded failed with what to do. Ahead (a rollback): run, and say so.
  if (schema.standing === 'behind') throw new SchemaBehind(schema);
  if (schema.standing === 'ahead') ctx.deps.log('schema.ahead', { runId, stored: schema.stored, code: schema.code });
  const fetched = (steps.fetch = await ctx.phase('fetch', () => fetchFeeds(ctx)));
  await failpoint('after-postings-stored');
  const match = (steps.match = await ctx.phase('match', () => matchNewPostings(ctx, fetched)));
  const claims = (steps.claim = await ctx.phase('claim', () => claimMatches(ctx, match)));
  await failpoint('after-claim');
  steps.flush = await ctx.phase('flush', () => flushDigests(ctx, claims));
  await failpoint('after-digest-claim');
  // Emails and channel messages are dispatched side by side: neither waits for the other's platform.
  const [emails, messages] = await Promise.allSettled([
    ctx.phase('dispatch', () => dispatchEmails(ctx)),
    ctx.phase('messages', () => dispatchChannelMessages(ctx)),
  ]);
  if (emails.status === 'fulfilled') steps.dispatch = emails.value;
  if (messages.status === 'fulfilled') steps.messages = messages.value;
  for (const settled of [emails, messages]) if (settled.status === 'rejected') throw settled.reason;
  steps.repair = await ctx.phase('repair', () => repairIndex(ctx));
}
