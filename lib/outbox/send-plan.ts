import type { BatchOutcome } from '../mail/mailer';
import type { SendOutcome } from '../mail/send-outcome';
import type { EmailKind } from './outbox-row';
import { nextStep, type Answer, type SendStep } from './send-rules';

/**
 * What the sender of one request (deliver-send-batch.ts) writes after each provider answer, decided
 * from what it has read: the answer, the members' kinds and attempts, and the run's own limits
 * (its time budget, the paced retries it has spent, its lease). nextStep (send-rules.ts) says
 * what the answer means for an email; this adds what one run can afford. Pure, so it reads as a
 * table (test/outbox/send-plan.test.ts); deliverSendBatch only carries the plan out.
 */

/**
 * Rate-limited retries of one request in one run before it is handed back to the next run. They
 * use up no attempt, so this bounds only how long one request keeps a run's sender busy.
 */
export const MAX_PACED_RETRIES = 30;
/** A paced retry renews the lease (a write) only when less than this would be left of it. */
export const LEASE_RENEW_MARGIN_MS = 30_000;
/** Time a retry keeps in hand beyond its wait: the send and its record still have to fit in the budget. */
export const RETRY_RESERVE_MS = 5_000;

/** What a request whose limiter slot came too late (DeliverDeps.slotTooLate) gets instead of a provider answer. */
export const NO_SLOT = { kind: 'no-slot' } as const;

export type ProviderAnswer = SendOutcome | BatchOutcome | typeof NO_SLOT;

/**
 * The provider's answer as the rules read it. `quotaRefused`: the run's quota pause counted this
 * send as refused (it was the one refused, or it stood in for an earlier refusal); a quota answer
 * the pause did not count never left this run.
 */
export function answerOf(outcome: ProviderAnswer, quotaRefused: boolean): Answer {
  if (outcome.kind === 'quota') return { ...outcome, ours: quotaRefused };
  if (outcome.kind === 'refused') return { ...outcome, rateLimited: outcome.status === 429 };
  return outcome;
}

/** The ids the provider gave an accepted request, one per member in member order; none for any other answer. */
export function providerIdsOf(outcome: ProviderAnswer): string[] {
  if (outcome.kind !== 'accepted') return [];
  return 'providerIds' in outcome ? outcome.providerIds : [outcome.providerId];
}

/** The provider's Retry-After of a definite refusal, which sets the wait before the next attempt. */
export const retryAfterOf = (outcome: ProviderAnswer): number | null => (outcome.kind === 'refused' ? outcome.retryAfterMs : null);

export type SendPlan =
  /** Every member recorded `sent`, with the provider id the answer gave it. */
  | { plan: 'record-sent' }
  /** Back to where it was before the lease, the attempt not counted (a quota, a slot too late): holdSendBatch. */
  | { plan: 'hand-back'; result: 'quota' | 'released'; handedOver: boolean; lastError: string | null }
  /**
   * Handed to a later run with its attempts as they are (releaseSendBatch): `pending` when no attempt
   * may have reached the provider, else `sending` for the key-window rule. A batch refused as a
   * whole, or never handed over, is dissolved; `asNew` lets its rows be batched again.
   */
  | { plan: 'release'; neverSent: boolean; dissolve: boolean; asNew: boolean; lastError: string; backOffMs: number | null }
  /** Closed for good, each active member with its own status (only its kind tells one member's from another's). */
  | { plan: 'give-up'; statuses: ('failed' | 'dead')[]; error: string; backOffMs: number | null }
  /**
   * Wait `afterMs`, then send again under the same key. `paced`: the run's paced retries of this
   * request, this one included; `recheck`: re-read the rows first, another sender may have finished.
   */
  | ({ plan: 'retry'; paced: number } & Omit<Extract<SendStep, { step: 'retry' }>, 'step'>);

/**
 * - `kinds`: the active members' kinds, in member order.
 * - `attempts`, `maxAttempts`, `handedOver`, `delayMs`: as nextStep reads them.
 * - `paced`: rate-limited retries of this request so far in this run.
 * - `outOfTime(reserveMs)`: whether the run's budget is spent with `reserveMs` still kept in hand.
 */
export function planAfterAnswer(input: {
  kinds: EmailKind[];
  answer: Answer;
  batch: boolean;
  attempts: number;
  maxAttempts: number;
  handedOver: boolean;
  paced: number;
  delayMs: number;
  outOfTime: (reserveMs: number) => boolean;
}): SendPlan {
  const rules = { ...input, kind: input.kinds[0] };
  const step = nextStep(rules);
  switch (step.step) {
    case 'record-sent':
      return { plan: 'record-sent' };
    case 'hand-back':
      return { plan: 'hand-back', result: step.result, handedOver: step.handedOver, lastError: step.error };
    case 'send-alone':
      return { plan: 'release', neverSent: true, dissolve: true, asNew: false, lastError: step.error, backOffMs: null };
    case 'give-up': {
      const statuses = input.kinds.map((kind) => {
        const own = nextStep({ ...rules, kind });
        return own.step === 'give-up' ? own.status : step.status;
      });
      return { plan: 'give-up', statuses, error: step.error, backOffMs: step.backOffMs };
    }
  }
  const paced = step.countsAttempt ? input.paced : input.paced + 1;
  if (input.outOfTime(step.afterMs + RETRY_RESERVE_MS) || paced > MAX_PACED_RETRIES) {
    // Only a request no attempt of which may have reached the provider goes back to `pending`, and
    // unpacked: a pending row that kept its batch key would have to be leased with all its batch at
    // once, and nothing went out under that key. Otherwise it stays `sending` for the next
    // run's recovery, which resends it whole under the same key inside the key window.
    // A batch's members were never tried before it (only never-tried rows are batched) and were
    // only refused since: they go back as never tried, to be batched again. Kept as tried, each
    // would go out alone, one request per email: with shards sharing the provider's rate, the
    // rows their 429s handed back were then sent at a hundredth of the rate a batch gets.
    const neverSent = !step.handedOver;
    return {
      plan: 'release',
      neverSent,
      dissolve: neverSent,
      asNew: neverSent && input.batch,
      lastError: step.error,
      backOffMs: step.backOffMs,
    };
  }
  const { afterMs, backOffMs, handedOver, error, recheck, countsAttempt } = step;
  return { plan: 'retry', afterMs, backOffMs, handedOver, error, recheck, countsAttempt, paced };
}

/**
 * Whether the lease must be renewed before the next attempt. An attempt is recorded before it is
 * made (the write that counts it renews the lease too); a paced retry writes only when the lease
 * the sender last wrote would run short.
 */
export function mustRenewLease(input: { countsAttempt: boolean; now: number; leaseSafeUntil: number }): boolean {
  return input.countsAttempt || input.now + LEASE_RENEW_MARGIN_MS > input.leaseSafeUntil;
}
