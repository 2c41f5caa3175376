import type { FeedReport } from '../feeds/refresh-feeds';
import { outboxCollection } from '../outbox/outbox-row';
import { claimMatches, fetchFeeds, flushDigests, matchNewPostings } from './cycle-steps';
import type { RunContext } from './run-context';

export type DryRunReport = {
  dryRun: true;
  runId: string;
  jobsFetched: number;
  jobsNew: number;
  users: number;
  matches: number;
  wouldSend: {
    alerts: number;
    alertItems: number;
    /** Items past an alert's MAX_ALERT_ITEMS (or its byte budget), recorded as skipped. */
    alertItemsCapped: number;
    queued: number;
    digests: number;
    digestItems: number;
    outboxPending: number;
  };
  feeds: FeedReport[];
};

/**
 * ?dryRun=1: the run's own steps with the commit off (`ctx.commit === false`). Fetch, match, the
 * claim planner and the flush planner do the same reads and make the same decisions as a run
 * started now — the alert cap and byte budget, the digest day, opt-outs and mode changes on due
 * digests — and write nothing: no lock, no run record, no feed validators, no claims, no cursor,
 * no sends. What the claim step would have queued is handed to the flush in its plan, as a run's
 * flush would read it back from the ledger. Dispatch is the one step left out: it only counts
 * what is already waiting in the outbox.
 */
export async function dryRunCycle(ctx: RunContext): Promise<DryRunReport> {
  if (ctx.commit) throw new Error('dryRunCycle runs with the commit off');
  const fetched = await fetchFeeds(ctx);
  const match = await matchNewPostings(ctx, fetched);
  const claims = await claimMatches(ctx, match);
  const digests = await flushDigests(ctx, claims);
  const pending = await outboxCollection(ctx.deps.db).where('status', '==', 'pending').count().get();
  return {
    dryRun: true,
    runId: ctx.runId,
    jobsFetched: fetched.fetched,
    jobsNew: fetched.new,
    users: match.users,
    matches: claims.matches,
    wouldSend: {
      alerts: claims.alertEmails,
      alertItems: claims.instantDeliveries,
      alertItemsCapped: claims.skipped,
      queued: claims.queued,
      digests: digests.claimed,
      digestItems: digests.items,
      outboxPending: pending.data().count,
    },
    feeds: fetched.feeds,
  };
}
