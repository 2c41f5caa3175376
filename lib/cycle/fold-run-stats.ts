import { emptyRunStats, type RunStats } from '../ledger/runs';
import type { ClaimResult, DispatchResult, FetchResult, FlushResult, MatchResult, RepairResult } from './cycle-steps';
import type { RunContext } from './run-context';
import type { MessageStats } from '../messages/dispatch-messages';

/** What the steps of one run returned, as far as it got: a step that never ran (the run threw first) is absent. */
export type StepResults = {
  fetch?: FetchResult;
  match?: MatchResult;
  claim?: ClaimResult;
  flush?: FlushResult;
  dispatch?: DispatchResult;
  messages?: MessageStats | null;
  repair?: RepairResult;
};

/**
 * The one place a run's stats are built: from the steps' results, once, when the run ends.
 * `partial` says the next run has work this one left: postings a feed held back or past the
 * matching batch, claims cut by the budget or given up after losing races, rows not dispatched.
 */
export function foldRunStats(ctx: RunContext, steps: StepResults, errors: string[]): RunStats {
  const { fetch, match, claim, flush, dispatch, repair } = steps;
  const feedErrors = fetch?.feeds.filter((f) => f.status === 'error').length ?? 0;
  const sent = dispatch?.sent;
  return {
    ...emptyRunStats(ctx.runId, ctx.trigger, ctx.shardTag),
    jobsFetched: fetch?.fetched ?? 0,
    jobsNew: fetch?.new ?? 0,
    users: match?.users ?? 0,
    matches: claim?.matches ?? 0,
    instantEmails: sent?.alert ?? 0,
    instantDeliveries: claim?.instantDeliveries ?? 0,
    queued: claim?.queued ?? 0,
    digests: sent?.digest ?? 0,
    emailsSent: sent ? Object.values(sent).reduce((a, b) => a + b, 0) : 0,
    providerRequests: dispatch?.providerRequests ?? 0,
    skippedEmails: dispatch ? dispatch.skipped + (claim?.skipped ?? 0) : 0,
    failures: feedErrors + (dispatch ? dispatch.failed + dispatch.dead : 0),
    claimsGivenUp: { deliveries: claim?.gaveUp ?? 0, digests: flush?.gaveUp ?? 0 },
    partial: [
      (fetch?.held ?? 0) > 0,
      match?.more,
      claim?.truncated,
      (claim?.gaveUp ?? 0) > 0,
      flush?.truncated,
      (flush?.gaveUp ?? 0) > 0,
      (dispatch?.deferred ?? 0) > 0,
      dispatch?.unlisted,
    ].some(Boolean),
    quota: dispatch?.quota ?? null,
    model: ctx.judge?.stats() ?? null,
    matchIndex: {
      subscribersFrom: match?.subscribersFrom ?? null,
      repair: repair?.ran
        ? { checked: repair.checked, drift: repair.drift, fixed: repair.fixed, refused: repair.refused, finished: repair.finished }
        : null,
    },
    durationMs: ctx.elapsedMs(),
    phases: ctx.phases,
    sender: ctx.runSender?.timing() ?? null,
    channels: steps.messages ?? null,
    feeds: (fetch?.feeds ?? []).map(({ source, status, postings, held, duplicates, error }) => ({
      source,
      status,
      postings,
      held: held || undefined,
      duplicates: duplicates || undefined,
      error,
    })),
    errors,
  };
}

/** How a run's record names the error that ended it. */
export const describeError = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));
