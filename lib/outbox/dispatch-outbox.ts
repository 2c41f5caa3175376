import type { Firestore, Timestamp } from 'firebase-admin/firestore';
import pLimit from 'p-limit';
import type { Failpoint } from '../cycle/failpoints';
import { isLostPrecondition } from '../ledger/firestore-errors';
import type { Mailer } from '../mail/mailer';
import type { SendLimiter } from '../mail/send-limiter';
import type { SendOutcome } from '../mail/send-outcome';
import { closeRow, leaseRow, type Lease } from './lease-row';
import { outboxCollection } from './outbox-row';
import { retryDelayMs } from './retry-delay';

export type DispatchDeps = {
  db: Firestore;
  mailer: Mailer;
  limiter: SendLimiter;
  failpoint: Failpoint;
  clock: () => Date;
  sleep: (ms: number) => Promise<void>;
  /** True once the run's time budget is spent: no new row is started after that. */
  outOfTime: (reserveMs?: number) => boolean;
};

export type DispatchStats = {
  sent: { alert: number; digest: number };
  skipped: number;
  failed: number;
  dead: number;
  retried: number;
  deferred: number;
  fenced: number;
};

const ROWS_PER_RUN = 1_000;
const LEASE_MS = 120_000;
/** Rows are leased and recorded in parallel; the limiter alone decides how fast the provider is asked. */
const ROW_CONCURRENCY = 16;

/**
 * dispatch outbox: lease → activity check → send (Idempotency-Key = email key) → record.
 * Takes every row that is pending, or `sending` with a lease that ran out (its holder died).
 */
export async function dispatchOutbox(deps: DispatchDeps, input: { runId: string; maxAttempts: number }): Promise<DispatchStats> {
  const stats: DispatchStats = { sent: { alert: 0, digest: 0 }, skipped: 0, failed: 0, dead: 0, retried: 0, deferred: 0, fenced: 0 };
  const now = deps.clock();
  const [pending, abandoned] = await Promise.all([
    outboxCollection(deps.db).where('status', '==', 'pending').orderBy('createdAt').limit(ROWS_PER_RUN).get(),
    outboxCollection(deps.db).where('status', '==', 'sending').where('leaseUntil', '<=', now).limit(ROWS_PER_RUN).get(),
  ]);
  const rows = [...abandoned.docs, ...pending.docs].map((d) => ({ emailKey: d.id, uid: d.get('uid') as string }));
  const limit = pLimit(ROW_CONCURRENCY);
  await Promise.all(
    rows.map((row) =>
      limit(async () => {
        if (deps.outOfTime()) {
          stats.deferred += 1;
          return;
        }
        const leased = await leaseRow(deps.db, { ...row, runId: input.runId, now: deps.clock(), leaseMs: LEASE_MS });
        if (leased.kind === 'skipped') stats.skipped += 1;
        if (leased.kind === 'failed') stats.failed += 1;
        if (leased.kind !== 'leased') return;
        const outcome = await deliver(deps, leased.lease, input, stats);
        if (outcome === 'sent') stats.sent[leased.lease.row.kind] += 1;
        else if (outcome !== 'released') stats[outcome] += 1;
        else stats.deferred += 1;
      }),
    ),
  );
  return stats;
}

type Final = 'sent' | 'failed' | 'dead' | 'fenced' | 'released';

async function deliver(deps: DispatchDeps, lease: Lease, input: { maxAttempts: number }, stats: DispatchStats): Promise<Final> {
  const { row, emailKey } = lease;
  let guard = { lastUpdateTime: lease.updateTime };
  let attempts = lease.attempts;
  const close = async (rowStatus: 'sent' | 'failed' | 'dead', reason: string | null, providerId?: string): Promise<Final> => {
    await deps.failpoint('before-record', { emailKey });
    const deliveryStatus = rowStatus === 'sent' ? 'sent' : 'failed';
    const ok = await closeRow(deps.db, {
      emailKey,
      row,
      guard,
      rowStatus,
      deliveryStatus,
      reason,
      providerId,
      attempts,
      now: deps.clock(),
    });
    return ok ? rowStatus : 'fenced';
  };

  for (;;) {
    await deps.failpoint('before-send', { emailKey });
    const outcome = await deps.limiter.run(() => deps.mailer.send(row.payload, { idempotencyKey: emailKey }));
    await deps.failpoint('after-send', { emailKey });

    if (outcome.kind === 'accepted') return close('sent', null, outcome.providerId);
    if (outcome.kind === 'key-conflict' && outcome.reason === 'mismatch') {
      // The stored payload changed under a used key: a bug. Never resend it under a new key.
      return close('dead', `invalid_idempotent_request: ${outcome.error}`);
    }
    if (outcome.kind === 'refused' && !outcome.retryable) return close('dead', outcome.error);

    const retryAfterMs = outcome.kind === 'refused' ? outcome.retryAfterMs : null;
    const delay = retryDelayMs({ attempt: attempts, retryAfterMs });
    if (outcome.kind === 'refused') deps.limiter.backOff(delay);
    if (attempts >= input.maxAttempts) return close(finalStatusAfterRetries(row.kind, outcome), lastErrorOf(outcome));
    if (deps.outOfTime(delay + 5_000)) return release(deps, { emailKey, guard, outcome, attempts });

    await deps.sleep(delay);
    if (outcome.kind === 'key-conflict') {
      // Someone else is sending this very key right now; see whether they finished.
      const current = await outboxCollection(deps.db).doc(emailKey).get();
      if (current.get('status') === 'sent') return 'fenced';
    }
    const extended = await extendLease(deps, { emailKey, guard, attempts: attempts + 1, lastError: lastErrorOf(outcome) });
    if (!extended) return 'fenced';
    guard = { lastUpdateTime: extended };
    attempts += 1;
    stats.retried += 1;
  }
}

/** After the attempt cap: a digest is dead (visible, resendable); an alert whose fate is unknown is failed, never resent. */
function finalStatusAfterRetries(kind: 'alert' | 'digest', outcome: SendOutcome): 'failed' | 'dead' {
  if (kind === 'alert' && (outcome.kind === 'ambiguous' || outcome.kind === 'key-conflict')) return 'failed';
  return 'dead';
}

function lastErrorOf(outcome: SendOutcome): string {
  if (outcome.kind === 'accepted') return '';
  if (outcome.kind === 'ambiguous') return `unknown_outcome: ${outcome.error}`;
  return outcome.error;
}

async function extendLease(
  deps: DispatchDeps,
  input: { emailKey: string; guard: { lastUpdateTime: Timestamp }; attempts: number; lastError: string },
) {
  try {
    const result = await outboxCollection(deps.db)
      .doc(input.emailKey)
      .update(
        { attempts: input.attempts, lastError: input.lastError, leaseUntil: new Date(deps.clock().getTime() + LEASE_MS) },
        input.guard,
      );
    return result.writeTime;
  } catch (error) {
    if (isLostPrecondition(error)) return null;
    throw error;
  }
}

/**
 * Out of time with retries left: hand the row to the next run. A definite refusal goes back to
 * `pending` (it was never sent); an unknown outcome stays `sending` with an expired lease, so the
 * next run re-checks it under the key-window rule.
 */
async function release(
  deps: DispatchDeps,
  input: { emailKey: string; guard: { lastUpdateTime: Timestamp }; outcome: SendOutcome; attempts: number },
): Promise<Final> {
  const neverSent = input.outcome.kind === 'refused';
  try {
    await outboxCollection(deps.db)
      .doc(input.emailKey)
      .update(
        {
          status: neverSent ? 'pending' : 'sending',
          leaseUntil: neverSent ? null : deps.clock(),
          lastError: lastErrorOf(input.outcome),
          attempts: input.attempts,
        },
        input.guard,
      );
    return 'released';
  } catch (error) {
    if (isLostPrecondition(error)) return 'fenced';
    throw error;
  }
}
