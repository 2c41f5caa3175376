import type { Firestore } from 'firebase-admin/firestore';
import type { Mailer } from '../mail/mailer';
import type { SendLimiter } from '../mail/send-limiter';
import type { Config } from '../runtime/config';
import type { Failpoint } from '../runtime/failpoints';
import type { Logger } from '../runtime/logger';
import { deliverSendBatch, LEASE_MS } from './deliver-send-batch';
import { leaseRow } from './lease-row';
import { createQuotaPause } from './quota-pause';
import { singleSendBatch } from './send-batch-lease';
import { SEND_MAX_ATTEMPTS } from './send-rules';

/** `quota`: the provider's quota is used up; the row is pending again, untried, for the first run after it resets. */
export type SendNowResult = 'sent' | 'failed' | 'dead' | 'fenced' | 'released' | 'quota' | 'skipped' | 'not-ours';

/** What sending one row outside the cron needs: the process's store, provider, send limiter and clocks. */
export type SendNowDeps = {
  db: Firestore;
  mailer: Mailer;
  /** The process's one limiter, shared with the cron's sends (see AppDeps). */
  sendLimiter: SendLimiter;
  failpoint: Failpoint;
  log: Logger;
  wallClock: () => number;
  sleep: (ms: number) => Promise<void>;
  config: Pick<Config, 'tuning'>;
};

/** A request handler has seconds, not minutes: give up early and leave the row to the cron's dispatcher. */
const REQUEST_BUDGET_MS = 10_000;
/**
 * Kept for the send and its record once a slot comes: a request waits at most budget minus this
 * (5 s) for its slot. At 2 sends a second that is about 10 emails queued in one instance; under a
 * bigger burst the rest go back to `pending` for the cron, rather than keep people waiting.
 */
const SEND_RESERVE_MS = 5_000;

/**
 * Sends one outbox row now, through the same lease, activity check, classification and fenced
 * record as the cron's dispatcher — for emails a person is waiting for (the double opt-in link).
 * The request goes through the process's send limiter (deps.sendLimiter), so a burst of signups
 * is paced like everything else this instance sends; a row whose slot would come too late for
 * the request goes back to `pending` untried. The row was written first, so if this request dies
 * or runs out of time, the next cron run finds it pending (or abandoned) and finishes the job
 * under the same key.
 */
export async function sendRowNow(deps: SendNowDeps, input: { emailKey: string; uid: string; runId: string }): Promise<SendNowResult> {
  const started = deps.wallClock();
  const clock = () => new Date(deps.wallClock());
  const leased = await leaseRow(deps.db, { ...input, now: clock(), leaseMs: LEASE_MS });
  if (leased.kind !== 'leased') return leased.kind;
  const outOfTime = (reserveMs = 0) => deps.wallClock() - started + reserveMs > REQUEST_BUDGET_MS;
  const { results } = await deliverSendBatch(
    {
      db: deps.db,
      mailer: deps.mailer,
      limiter: deps.sendLimiter,
      failpoint: deps.failpoint,
      clock,
      sleep: deps.sleep,
      outOfTime,
      // Queued behind other sends of this instance for too long: the cron's dispatcher sends it.
      slotTooLate: () => outOfTime(SEND_RESERVE_MS),
      log: deps.log,
      runId: input.runId,
      quota: createQuotaPause(),
    },
    singleSendBatch(leased.lease),
    { maxAttempts: deps.config.tuning?.SEND_MAX_ATTEMPTS ?? SEND_MAX_ATTEMPTS },
  );
  return results.get(input.emailKey) ?? 'not-ours';
}
