import type { Firestore } from 'firebase-admin/firestore';
import type { Failpoint } from '../runtime/failpoints';
import type { Logger } from '../runtime/logger';
import { shortHash } from '../store/short-hash';
import type { BatchOutcome, Mailer } from '../mail/mailer';
import type { SendLimiter } from '../mail/send-limiter';
import type { SendOutcome } from '../mail/send-outcome';
import { closeRows, type CloseInput } from './lease-row';
import { outboxCollection, payloadOf, providerIdempotencyKey } from './outbox-row';
import type { QuotaPause } from './quota-pause';
import { retryDelayMs } from './retry-delay';
import type { Answer } from './send-rules';
import {
  answerOf,
  mustRenewLease,
  NO_SLOT,
  planAfterAnswer,
  providerIdsOf,
  retryAfterOf,
  type ProviderAnswer,
  type SendPlan,
} from './send-plan';
import { extendLease, holdSendBatch, releaseSendBatch, type Member, type SendBatch } from './send-batch-lease';

export const LEASE_MS = 120_000;

export type DeliverDeps = {
  db: Firestore;
  mailer: Mailer;
  limiter: SendLimiter;
  failpoint: Failpoint;
  clock: () => Date;
  sleep: (ms: number) => Promise<void>;
  /** True once the run's time budget is spent: no new row is started after that. */
  outOfTime: (reserveMs?: number) => boolean;
  /** One line per email that ends failed or dead, for the operator's log search. */
  log: Logger;
  runId: string;
  /** Shared by every send of the run: after one quota refusal, nothing more is sent. */
  quota: QuotaPause;
  /**
   * For a sender that cannot wait long (a request handler): asked when the send batch's turn at the
   * limiter comes, and again once its slot does. True hands the send batch back as it was, without a
   * request or an attempt used, for the cron's dispatcher to send.
   */
  slotTooLate?: () => boolean;
};

/** How each member of a send batch ended in this run; `quota`: handed back untried because the provider's quota is used up. */
export type MemberResult = 'sent' | 'failed' | 'dead' | 'fenced' | 'released' | 'quota';

/** What this run has learnt of the request so far, carried from one attempt to the next. */
type Progress = {
  /**
   * Whether an attempt of this request may have reached the provider: a holder that died mid-send
   * left it `sending`, or an outcome in this run was unknown. Decides where a quota hands it back.
   */
  handedOver: boolean;
  /** Retries after a rate limit: no attempt used, but they still lengthen the backoff without Retry-After. */
  paced: number;
  retries: number;
  /** Until when the lease this run last wrote is safe to rely on. */
  leaseSafeUntil: number;
};

/**
 * send (Idempotency-Key = a digest of the send batch's key, see providerIdempotencyKey) → record, with
 * retries inside the run. What each provider answer leads to (sent, dead, failed as
 * unknown_outcome, retried under the same key, handed back for a quota, a batch dissolved, left
 * to the next run) is decided by planAfterAnswer (send-plan.ts, on nextStep of send-rules.ts);
 * this function reads the answer and carries the plan out. Once the provider refuses for quota,
 * every send batch of the run that reaches its turn after that is handed back without a request. Every
 * record is fenced by the lease version we hold, so a run whose lease was taken over cannot
 * overwrite the new holder.
 */
export async function deliverSendBatch(
  deps: DeliverDeps,
  sendBatch: SendBatch,
  input: { maxAttempts: number },
): Promise<{ results: Map<string, MemberResult>; retries: number }> {
  const progress: Progress = {
    handedOver: activeMembers(sendBatch).some((m) => m.row.status === 'sending'),
    paced: 0,
    retries: 0,
    // The caller hands the send batch over with at least half a lease left (a fresh lease, or the run sender's renewal).
    leaseSafeUntil: deps.clock().getTime() + LEASE_MS / 2,
  };
  for (;;) {
    const sent = await sendOnce(deps, sendBatch);
    const members = activeMembers(sendBatch);
    const attempts = Math.max(...members.map((m) => m.attempts));
    const plan = planAfterAnswer({
      kinds: members.map((m) => m.row.kind),
      answer: sent.answer,
      batch: sendBatch.batch,
      attempts,
      maxAttempts: input.maxAttempts,
      handedOver: progress.handedOver,
      paced: progress.paced,
      delayMs: retryDelayMs({ attempt: attempts + progress.paced, retryAfterMs: sent.retryAfterMs }),
      outOfTime: deps.outOfTime,
    });
    if (plan.plan !== 'retry') return { results: await recordPlan(deps, sendBatch, plan, sent.providerIds), retries: progress.retries };
    if (!(await prepareRetry(deps, sendBatch, plan, progress))) return { results: settled(sendBatch, 'fenced'), retries: progress.retries };
    progress.retries += 1;
  }
}

const activeMembers = (sendBatch: SendBatch) => sendBatch.members.filter((m) => m.active);

/** Every active member ended the same way. */
function settled(sendBatch: SendBatch, result: MemberResult): Map<string, MemberResult> {
  return new Map(activeMembers(sendBatch).map((m) => [m.emailKey, result]));
}

/** One request through the limiter, unless the run's quota pause or a late slot stops it first. */
async function sendOnce(
  deps: DeliverDeps,
  sendBatch: SendBatch,
): Promise<{ answer: Answer; providerIds: string[]; retryAfterMs: number | null }> {
  await deps.failpoint('before-send', { emailKey: sendBatch.key });
  let refused: 'first' | 'again' | null = null;
  const outcome = await deps.limiter.run<ProviderAnswer>(
    async () => {
      const answer = await send(deps.mailer, sendBatch);
      // Recorded before the limiter frees this slot, so no send queued behind it starts.
      if (answer.kind === 'quota') refused = deps.quota.reach(answer, deps.clock()) ? 'first' : 'again';
      return answer;
    },
    { unless: () => deps.quota.refusal() ?? (deps.slotTooLate?.() ? NO_SLOT : null) },
  );
  // A send batch whose slot came too late never sent anything: there is no "after the send" to stop in.
  if (outcome.kind !== 'no-slot') await deps.failpoint('after-send', { emailKey: sendBatch.key });
  if (outcome.kind === 'quota' && refused === 'first') deps.log('provider.quota_reached', { runId: deps.runId, ...deps.quota.hit() });
  return { answer: answerOf(outcome, refused !== null), providerIds: providerIdsOf(outcome), retryAfterMs: retryAfterOf(outcome) };
}

/** Carries out a plan that ends the request's turn in this run. */
async function recordPlan(
  deps: DeliverDeps,
  sendBatch: SendBatch,
  plan: Exclude<SendPlan, { plan: 'retry' }>,
  providerIds: string[],
): Promise<Map<string, MemberResult>> {
  switch (plan.plan) {
    case 'hand-back': {
      const held = await holdSendBatch(deps.db, sendBatch, { handedOver: plan.handedOver, lastError: plan.lastError, now: deps.clock() });
      return settled(sendBatch, held ? plan.result : 'fenced');
    }
    case 'record-sent':
      return recordSent(deps, sendBatch, providerIds);
    case 'release': {
      if (plan.backOffMs !== null) deps.limiter.backOff(plan.backOffMs);
      const released = await releaseSendBatch(deps.db, sendBatch, {
        neverSent: plan.neverSent,
        dissolve: plan.dissolve,
        asNew: plan.asNew,
        lastError: plan.lastError,
        now: deps.clock(),
      });
      return settled(sendBatch, released ? 'released' : 'fenced');
    }
    case 'give-up':
      if (plan.backOffMs !== null) deps.limiter.backOff(plan.backOffMs);
      return closeAll(deps, sendBatch, plan.statuses, plan.error);
  }
}

/**
 * Before another attempt: the limiter slows down, the wait, a re-read when the same key was in
 * flight elsewhere, and the lease renewed when the attempt counts or the lease runs short. False
 * when the rows are no longer ours to send: taken over, or finished by that other sender.
 */
async function prepareRetry(
  deps: DeliverDeps,
  sendBatch: SendBatch,
  plan: Extract<SendPlan, { plan: 'retry' }>,
  progress: Progress,
): Promise<boolean> {
  progress.handedOver = plan.handedOver;
  progress.paced = plan.paced;
  if (plan.backOffMs !== null) deps.limiter.backOff(plan.backOffMs);
  await deps.sleep(plan.afterMs);
  if (plan.recheck) {
    // The same key is in flight elsewhere right now; if that sender finished, so are we.
    const snaps = await deps.db.getAll(...activeMembers(sendBatch).map((m) => outboxCollection(deps.db).doc(m.emailKey)));
    if (snaps.every((s) => s.get('status') === 'sent')) return false;
  }
  const now = deps.clock().getTime();
  if (!mustRenewLease({ countsAttempt: plan.countsAttempt, now, leaseSafeUntil: progress.leaseSafeUntil })) return true;
  const leaseUntil = new Date(now + LEASE_MS);
  if (!(await extendLease(deps.db, sendBatch, { leaseUntil, lastError: plan.error, countsAttempt: plan.countsAttempt }))) return false;
  progress.leaseSafeUntil = leaseUntil.getTime();
  return true;
}

/** The only place a key is handed to the provider, and it is always the fixed-length digest of the send batch's key. */
function send(mailer: Mailer, sendBatch: SendBatch): Promise<SendOutcome | BatchOutcome> {
  const idempotencyKey = providerIdempotencyKey(sendBatch.key);
  if (!sendBatch.batch) return mailer.send(payloadOf(sendBatch.members[0].row), { idempotencyKey });
  return mailer.sendBatch(
    sendBatch.members.map((m) => payloadOf(m.row)),
    { idempotencyKey },
  );
}

function closeInput(
  deps: DeliverDeps,
  m: Member,
  status: 'sent' | 'failed' | 'dead',
  reason: string | null,
  providerId?: string,
): CloseInput {
  return {
    emailKey: m.emailKey,
    row: m.row,
    guard: m.guard,
    rowStatus: status,
    reason: status === 'failed' && reason?.startsWith('unknown_outcome') ? 'unknown_outcome' : reason,
    providerId,
    attempts: m.attempts,
    now: deps.clock(),
  };
}

/** Every active member recorded `sent`, each with the provider id the answer gave it. */
async function recordSent(deps: DeliverDeps, sendBatch: SendBatch, providerIds: string[]): Promise<Map<string, MemberResult>> {
  await deps.failpoint('before-record', { emailKey: sendBatch.key });
  const members = sendBatch.members.map((m, i) => ({ m, providerId: providerIds[i] })).filter(({ m }) => m.active);
  const closed = await closeRows(
    deps.db,
    members.map(({ m, providerId }) => closeInput(deps, m, 'sent', null, providerId)),
    deps.failpoint,
  );
  return new Map(members.map(({ m }, i) => [m.emailKey, closed[i] ? 'sent' : 'fenced']));
}

/** Every active member closed for good, `statuses` in member order. */
async function closeAll(
  deps: DeliverDeps,
  sendBatch: SendBatch,
  statuses: ('failed' | 'dead')[],
  reason: string,
): Promise<Map<string, MemberResult>> {
  await deps.failpoint('before-record', { emailKey: sendBatch.key });
  const results = new Map<string, MemberResult>();
  const members = activeMembers(sendBatch);
  const closed = await closeRows(
    deps.db,
    members.map((m, i) => closeInput(deps, m, statuses[i], reason)),
    deps.failpoint,
  );
  members.forEach((m, i) => {
    results.set(m.emailKey, closed[i] ? statuses[i] : 'fenced');
    // The email key carries the uid, which is the address in base64url: log a digest of it instead.
    if (closed[i])
      deps.log('email.failed', {
        runId: deps.runId,
        email: shortHash(m.emailKey, 12),
        kind: m.row.kind,
        status: statuses[i],
        attempts: m.attempts,
        error: reason,
      });
  });
  return results;
}
