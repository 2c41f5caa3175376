import type { QuotaHit } from '../ledger/runs';
import { quotaResumesAt, type QuotaOutcome } from '../mail/send-outcome';

/**
 * One per run (or per request that sends now): once the provider refuses a send for quota, every
 * later send of the same run falls through without a request, and the dispatcher leases nothing
 * more. Trying again seconds later cannot help, and the quota is shared by every email.
 */
export type QuotaPause = {
  /** Records the first quota refusal; true when this was it (so it is logged once). */
  reach(outcome: QuotaOutcome, at: Date): boolean;
  hit(): QuotaHit | null;
  /** The refusal every later send of the run stands in for, or null while sending may go on. */
  refusal(): QuotaOutcome | null;
};

export function createQuotaPause(): QuotaPause {
  let first: { outcome: QuotaOutcome; hit: QuotaHit } | null = null;
  return {
    reach(outcome, at) {
      if (first) return false;
      const hit = { period: outcome.period, reachedAt: at, resumesAt: quotaResumesAt({ ...outcome, at }), error: outcome.error };
      first = { outcome, hit };
      return true;
    },
    hit: () => first?.hit ?? null,
    refusal: () => first?.outcome ?? null,
  };
}
