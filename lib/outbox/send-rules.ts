import type { Subscriber } from '../subscribers/subscriber';
import { isAtMostOnce, MAY_RECEIVE, type EmailKind, type OutboxRow } from './outbox-row';

/**
 * The send rules of docs/design.md §2 (at-most-once alerts, at-least-once digests, opt-outs win, a quota
 * never uses up attempts) as pure functions, so each decision is made in one place and can be
 * read and tested as a table (test/outbox/send-rules.test.ts). The callers only carry the steps out.
 */

/** The provider keeps an Idempotency-Key 24 h; we stay an hour inside that. */
export const PROVIDER_KEY_WINDOW_MS = 23 * 3_600_000;

/**
 * How long ago the row's key was first handed to the provider. A row never attempted counts as
 * fresh: nothing can have gone out under its key yet.
 */
export const keyAgeMs = (row: Pick<OutboxRow, 'firstAttemptAt'>, now: Date) =>
  row.firstAttemptAt ? now.getTime() - row.firstAttemptAt.getTime() : 0;

export type AbandonedStep =
  /** The provider still remembers the key: the very same request cannot be sent twice. */
  | { step: 'resend-under-key' }
  /** An alert (or welcome) that may have gone out and can no longer be deduplicated: a visible loss, never a duplicate. */
  | { step: 'give-up'; reason: 'unknown_outcome' }
  /** Any other email: at-least-once, so it goes again even though the key no longer protects it. */
  | { step: 'send-again' };

/**
 * A row left `sending` by a holder that died may have reached the provider (§2.3–2.4).
 * `sameRequest`: the exact request can be rebuilt (a batch whose member rows are all still there).
 */
export function abandonedStep(input: { kind: EmailKind; keyAgeMs: number; sameRequest: boolean }): AbandonedStep {
  if (input.sameRequest && input.keyAgeMs <= PROVIDER_KEY_WINDOW_MS) return { step: 'resend-under-key' };
  if (isAtMostOnce(input.kind)) return { step: 'give-up', reason: 'unknown_outcome' };
  return { step: 'send-again' };
}

export type LeaseStep =
  { step: 'not-ours' } | { step: 'skip'; reason: string } | { step: 'give-up'; reason: 'unknown_outcome' } | { step: 'lease' };

/**
 * Whether a row, read together with its subscriber, may be leased for a send. Finished rows and
 * live leases belong to someone else; opt-outs win over everything still unsent (§2.7); a pending
 * row was never handed over, so it may always go.
 */
export function leaseStep(input: {
  row: Pick<OutboxRow, 'kind' | 'status' | 'leaseUntil' | 'firstAttemptAt' | 'signupNonce'> | undefined;
  subscriber: Pick<Subscriber, 'status' | 'signupNonce'> | undefined;
  now: Date;
}): LeaseStep {
  const { row, subscriber, now } = input;
  if (!row) return { step: 'not-ours' };
  const live = row.status === 'sending' && row.leaseUntil !== null && row.leaseUntil > now;
  if ((row.status !== 'pending' && row.status !== 'sending') || live) return { step: 'not-ours' };
  if (!subscriber || !MAY_RECEIVE[row.kind].includes(subscriber.status)) {
    return { step: 'skip', reason: `subscriber_${subscriber?.status ?? 'deleted'}` };
  }
  // A confirmation waiting here (a quota, a failed send) whose signup was replaced carries a link
  // that would be refused: the newer signup's email is the one that counts.
  if (row.kind === 'confirm' && row.signupNonce !== null && row.signupNonce !== subscriber.signupNonce) {
    return { step: 'skip', reason: 'signup_superseded' };
  }
  if (row.status === 'sending') {
    // A lone row is its own request, so it can always be rebuilt byte for byte.
    const abandoned = abandonedStep({ kind: row.kind, keyAgeMs: keyAgeMs(row, now), sameRequest: true });
    if (abandoned.step === 'give-up') return abandoned;
  }
  return { step: 'lease' };
}

/** The provider's answer as the rules see it (SendOutcome / BatchOutcome, plus the two answers that never left this run). */
export type Answer =
  | { kind: 'accepted' }
  /** `rateLimited`: a 429 rate limit (not a quota): the provider pacing the requests, nothing about the email. */
  | { kind: 'refused'; retryable: boolean; error: string; rateLimited?: boolean }
  | { kind: 'ambiguous'; error: string }
  | { kind: 'key-conflict'; reason: 'concurrent' | 'mismatch'; error: string }
  /** `ours`: this send was the one refused; otherwise the run had already stopped sending and it never left. */
  | { kind: 'quota'; error: string; ours: boolean }
  /** A sender that cannot wait (a request handler) got its limiter slot too late, and did not send. */
  | { kind: 'no-slot' };

export type SendStep =
  | { step: 'record-sent' }
  | { step: 'give-up'; status: 'failed' | 'dead'; error: string; backOffMs: number | null }
  /** A batch the provider refused as a whole: its rows go back to `pending`, to be sent and judged alone. */
  | { step: 'send-alone'; error: string }
  /** Back to where it was before the lease, the attempt not counted: the answer says nothing about the email. */
  | { step: 'hand-back'; result: 'quota' | 'released'; handedOver: boolean; error: string | null }
  /**
   * Try again after `afterMs` under the same key; a run that cannot wait that long leaves it to the
   * next run (`pending` if it was never handed over, else `sending`, for the key-window rule).
   * `recheck`: the same key is in flight elsewhere, whose sender may finish the job first.
   * `countsAttempt`: false after a rate limit. Callers that share the provider's rate (shards,
   * several deployments on one team) are refused now and then however they pace themselves; a
   * refusal that says only "not this second" must not use up the email's attempts and kill it.
   */
  | {
      step: 'retry';
      afterMs: number;
      backOffMs: number | null;
      handedOver: boolean;
      error: string;
      recheck: boolean;
      countsAttempt: boolean;
    };

/** Attempts per email before it is given up (`dead`, or `failed` for an alert): enough for a provider's brief trouble, few enough that a lost email shows soon. */
export const SEND_MAX_ATTEMPTS = 5;

/**
 * What follows a provider answer for one row of a send batch (§2.3–2.4, §2.11, docs/design.md §3 Outbox).
 * The members of a batch share every input but their kind, and kind only changes the status of a
 * give-up: an alert whose fate is unknown is `failed` (unknown_outcome, never resent), anything
 * else `dead` (visible, with its last error, for the operator).
 *
 * - `attempts`: attempts made so far, this one included; `maxAttempts` caps them (SEND_MAX_ATTEMPTS unless a test tunes it).
 * - `handedOver`: an earlier attempt may have reached the provider (the row was `sending` when
 *   leased, or an earlier answer in this run was unknown).
 * - `delayMs`: the wait before another attempt (retryDelayMs: Retry-After, else jittered backoff).
 */
export function nextStep(input: {
  kind: EmailKind;
  answer: Answer;
  batch: boolean;
  attempts: number;
  maxAttempts: number;
  handedOver: boolean;
  delayMs: number;
}): SendStep {
  const { answer } = input;
  switch (answer.kind) {
    case 'accepted':
      return { step: 'record-sent' };
    // A quota is shared by every email and lasts hours: it never uses up an attempt (§2.11).
    case 'quota':
      return { step: 'hand-back', result: 'quota', handedOver: input.handedOver, error: answer.ours ? answer.error : null };
    case 'no-slot':
      return { step: 'hand-back', result: 'released', handedOver: input.handedOver, error: null };
  }
  // The body changed under a used key: a bug. A new key would send it twice, so it stops here.
  if (answer.kind === 'key-conflict' && answer.reason === 'mismatch') {
    return { step: 'give-up', status: 'dead', error: `invalid_idempotent_request: ${answer.error}`, backOffMs: null };
  }
  if (answer.kind === 'refused' && !answer.retryable) {
    // One bad email must not sink the others in its batch.
    if (input.batch) return { step: 'send-alone', error: answer.error };
    return { step: 'give-up', status: 'dead', error: answer.error, backOffMs: null };
  }

  const definite = answer.kind === 'refused';
  const handedOver = input.handedOver || !definite;
  const error = answer.kind === 'ambiguous' ? `unknown_outcome: ${answer.error}` : answer.error;
  // A definite refusal is the provider pacing us: every send of the limiter waits, not just this one.
  const backOffMs = definite ? input.delayMs : null;
  if (input.attempts >= input.maxAttempts) {
    // An alert that may already have gone out — this answer unknown, or an earlier one — is never
    // sent again: `failed` is final, while `dead` could be retried from the ops page. A last 429
    // proves only that this attempt did not send.
    if (isAtMostOnce(input.kind) && handedOver) {
      const last = definite ? `unknown_outcome: an earlier attempt may have been sent; last answer ${error}` : error;
      return { step: 'give-up', status: 'failed', error: last, backOffMs };
    }
    return { step: 'give-up', status: 'dead', error, backOffMs };
  }
  return {
    step: 'retry',
    afterMs: input.delayMs,
    backOffMs,
    handedOver,
    error,
    recheck: answer.kind === 'key-conflict',
    countsAttempt: !(answer.kind === 'refused' && answer.rateLimited === true),
  };
}
