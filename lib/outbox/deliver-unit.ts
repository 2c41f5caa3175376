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
import { nextStep, type Answer } from './send-rules';
import { extendLease, holdUnit, releaseUnit, type Member, type SendUnit } from './unit-lease';

export const LEASE_MS = 120_000;
/**
 * Rate-limited retries of one unit in one run before it is handed back to the next run. They use
 * up no attempt, so this bounds only how long one unit keeps a run's sender busy.
 */
export const MAX_PACED_RETRIES = 30;
/** A paced retry renews the lease (a write) only when less than this would be left of it. */
const LEASE_RENEW_MARGIN_MS = 30_000;

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
   * For a sender that cannot wait long (a request handler): asked when the unit's turn at the
   * limiter comes, and again once its slot does. True hands the unit back as it was, without a
   * request or an attempt used, for the cron's dispatcher to send.
   */
  slotTooLate?: () => boolean;
};

/** What a unit whose slot came too late (DeliverDeps.slotTooLate) gets instead of a provider answer. */
const NO_SLOT = { kind: 'no-slot' } as const;

/** How each member of a unit ended in this run; `quota`: handed back untried because the provider's quota is used up. */
export type MemberResult = 'sent' | 'failed' | 'dead' | 'fenced' | 'released' | 'quota';

/**
 * send (Idempotency-Key = a digest of the unit's key, see providerIdempotencyKey) → record, with
 * retries inside the run. What each provider answer leads to (sent, dead, failed as
 * unknown_outcome, retried under the same key, handed back for a quota, a batch dissolved) is
 * decided by nextStep (send-rules.ts); this function carries the step out. Once the provider
 * refuses for quota, every unit of the run that reaches its turn after that is handed back
 * without a request. Every record is fenced by the lease version we hold, so a run whose lease
 * was taken over cannot overwrite the new holder.
 */
export async function deliverUnit(
  deps: DeliverDeps,
  unit: SendUnit,
  input: { maxAttempts: number },
): Promise<{ results: Map<string, MemberResult>; retries: number }> {
  const results = new Map<string, MemberResult>();
  const active = () => unit.members.filter((m) => m.active);
  const settle = (result: MemberResult) => {
    for (const m of active()) results.set(m.emailKey, result);
    return { results, retries };
  };
  let retries = 0;
  // Retries after a rate limit: no attempt used, but they still lengthen the backoff without Retry-After.
  let paced = 0;
  // The caller hands the unit over with at least half a lease left (a fresh lease, or handoff's renewal).
  let leaseSafeUntil = deps.clock().getTime() + LEASE_MS / 2;
  // Whether an attempt of this unit may have reached the provider: a holder that died mid-send
  // left it `sending`, or an outcome in this run was unknown. Decides where a quota hands it back.
  let handedOver = active().some((m) => m.row.status === 'sending');

  for (;;) {
    await deps.failpoint('before-send', { emailKey: unit.key });
    let refused: 'first' | 'again' | null = null;
    const outcome = await deps.limiter.run<SendOutcome | BatchOutcome | typeof NO_SLOT>(
      async () => {
        const answer = await send(deps.mailer, unit);
        // Recorded before the limiter frees this slot, so no send queued behind it starts.
        if (answer.kind === 'quota') refused = deps.quota.reach(answer, deps.clock()) ? 'first' : 'again';
        return answer;
      },
      { unless: () => deps.quota.refusal() ?? (deps.slotTooLate?.() ? NO_SLOT : null) },
    );
    // A unit whose slot came too late never sent anything: there is no "after the send" to stop in.
    if (outcome.kind !== 'no-slot') await deps.failpoint('after-send', { emailKey: unit.key });
    if (outcome.kind === 'quota' && refused === 'first') deps.log('provider.quota_reached', { runId: deps.runId, ...deps.quota.hit() });

    const answer: Answer =
      outcome.kind === 'quota'
        ? { ...outcome, ours: refused !== null }
        : outcome.kind === 'refused'
          ? { ...outcome, rateLimited: outcome.status === 429 }
          : outcome;
    const attempts = Math.max(...active().map((m) => m.attempts));
    const rules = {
      answer,
      batch: unit.batch,
      attempts,
      maxAttempts: input.maxAttempts,
      handedOver,
      delayMs: retryDelayMs({ attempt: attempts + paced, retryAfterMs: outcome.kind === 'refused' ? outcome.retryAfterMs : null }),
    };
    const ids = outcome.kind !== 'accepted' ? [] : 'providerIds' in outcome ? outcome.providerIds : [outcome.providerId];
    const stepOf = (m: Member) => nextStep({ ...rules, kind: m.row.kind });
    const step = stepOf(active()[0]);

    switch (step.step) {
      case 'hand-back': {
        const held = await holdUnit(deps.db, unit, { handedOver: step.handedOver, lastError: step.error, now: deps.clock() });
        return settle(held ? step.result : 'fenced');
      }
      case 'record-sent': {
        await deps.failpoint('before-record', { emailKey: unit.key });
        const members = unit.members.map((m, i) => ({ m, providerId: ids[i] })).filter(({ m }) => m.active);
        const closed = await closeRows(
          deps.db,
          members.map(({ m, providerId }) => closeInput(deps, m, 'sent', null, providerId)),
          deps.failpoint,
        );
        members.forEach(({ m }, i) => results.set(m.emailKey, closed[i] ? 'sent' : 'fenced'));
        return { results, retries };
      }
      case 'send-alone': {
        const released = await releaseUnit(deps.db, unit, { neverSent: true, dissolve: true, lastError: step.error, now: deps.clock() });
        return settle(released ? 'released' : 'fenced');
      }
      case 'give-up': {
        if (step.backOffMs !== null) deps.limiter.backOff(step.backOffMs);
        // Only its kind tells one member's give-up from another's.
        const status = (m: Member) => {
          const own = stepOf(m);
          return own.step === 'give-up' ? own.status : step.status;
        };
        await closeAll(deps, unit, results, status, step.error);
        return { results, retries };
      }
    }

    handedOver = step.handedOver;
    if (step.backOffMs !== null) deps.limiter.backOff(step.backOffMs);
    if (!step.countsAttempt) paced += 1;
    if (deps.outOfTime(step.afterMs + 5_000) || paced > MAX_PACED_RETRIES) {
      // Only a unit no attempt of which may have reached the provider goes back to `pending`, and
      // unsealed: a pending row that kept a seal would have to be leased with all its batch at
      // once, and nothing went out under that key. Otherwise it stays `sending` for the next
      // run's recovery, which resends it whole under the same key inside the key window.
      // A batch's members were never tried before it (only never-tried rows are batched) and were
      // only refused since: they go back as never tried, to be batched again. Kept as tried, each
      // would go out alone, one request per email: with shards sharing the provider's rate, the
      // rows their 429s handed back were then sent at a hundredth of the rate a batch gets.
      const released = await releaseUnit(deps.db, unit, {
        neverSent: !handedOver,
        dissolve: !handedOver,
        asNew: !handedOver && unit.batch,
        lastError: step.error,
        now: deps.clock(),
      });
      return settle(released ? 'released' : 'fenced');
    }

    await deps.sleep(step.afterMs);
    if (step.recheck) {
      // The same key is in flight elsewhere right now; if that sender finished, so are we.
      const snaps = await deps.db.getAll(...active().map((m) => outboxCollection(deps.db).doc(m.emailKey)));
      if (snaps.every((s) => s.get('status') === 'sent')) return settle('fenced');
    }
    // An attempt is recorded before it is made; a paced retry writes only when the lease runs short.
    const now = deps.clock().getTime();
    if (step.countsAttempt || now + LEASE_RENEW_MARGIN_MS > leaseSafeUntil) {
      const leaseUntil = new Date(now + LEASE_MS);
      if (!(await extendLease(deps.db, unit, { leaseUntil, lastError: step.error, countsAttempt: step.countsAttempt })))
        return settle('fenced');
      leaseSafeUntil = leaseUntil.getTime();
    }
    retries += 1;
  }
}

/** The only place a key is handed to the provider, and it is always the fixed-length digest of the unit's key. */
function send(mailer: Mailer, unit: SendUnit): Promise<SendOutcome | BatchOutcome> {
  const idempotencyKey = providerIdempotencyKey(unit.key);
  if (!unit.batch) return mailer.send(payloadOf(unit.members[0].row), { idempotencyKey });
  return mailer.sendBatch(
    unit.members.map((m) => payloadOf(m.row)),
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

async function closeAll(
  deps: DeliverDeps,
  unit: SendUnit,
  results: Map<string, MemberResult>,
  status: (m: Member) => 'failed' | 'dead',
  reason: string,
) {
  await deps.failpoint('before-record', { emailKey: unit.key });
  const members = unit.members.filter((m) => m.active);
  const closed = await closeRows(
    deps.db,
    members.map((m) => closeInput(deps, m, status(m), reason)),
    deps.failpoint,
  );
  members.forEach((m, i) => {
    results.set(m.emailKey, closed[i] ? status(m) : 'fenced');
    // The email key carries the uid, which is the address in base64url: log a digest of it instead.
    if (closed[i])
      deps.log('email.failed', {
        runId: deps.runId,
        email: shortHash(m.emailKey, 12),
        kind: m.row.kind,
        status: status(m),
        attempts: m.attempts,
        error: reason,
      });
  });
}
