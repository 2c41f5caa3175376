import { FieldValue, type Firestore } from 'firebase-admin/firestore';
import { isLostPrecondition } from '../store/firestore-errors';
import { outboxCollection, type OutboxStatus } from '../outbox/outbox-row';
import { fenceAt } from '../store/lease';

export type RetryEmailResult =
  | { kind: 'retried'; emailKey: string; uid: string; retries: number }
  | { kind: 'not-found' }
  /** Only a dead email is retried; anything else is the dispatcher's to finish (or already finished). */
  | { kind: 'refused'; status: OutboxStatus }
  /** Someone changed the row between our read and our write (another click, a run): nothing was written. */
  | { kind: 'lost-race' };

/**
 * An operator's "retry" of a dead email: the row goes back to `pending` under the same email key
 * (the provider's idempotency key) with its frozen payload, so the next run's dispatcher sends
 * those very bytes — after re-checking that the subscriber may still receive it (opt-outs win).
 *
 * Why this is safe: a row is `dead` only when the provider definitely refused it (a 4xx, or 429s
 * until the attempt cap) or when it is a digest (at-least-once, the key dedupes a copy). An alert
 * whose fate was unknown ends `failed`, never `dead`, and is not retried here.
 *
 * The reset clears what the dispatcher reads as a previous attempt: attempts back to 0 (it would
 * otherwise die on its next error at once), no lease, and no provider batch (the row goes out on
 * its own under its own key: firstAttemptAt is kept, so it is never packed into a new send batch, and a
 * stale batchKey would be taken for a packed one). The last error
 * moves to `retryHistory`, and `retries` counts the resets.
 *
 * The check is the write: the update is fenced by the version read (fenceAt, lib/store/lease.ts) as
 * dead, so of two clicks (or two operators) exactly one resets the row; the other is told so.
 */
export async function retryDeadEmail(db: Firestore, input: { emailKey: string; now: Date }): Promise<RetryEmailResult> {
  const ref = outboxCollection(db).doc(input.emailKey);
  const snap = await ref.get();
  const row = snap.data();
  if (!snap.exists || !row) return { kind: 'not-found' };
  if (row.status !== 'dead') return { kind: 'refused', status: row.status };
  const retries = ((snap.get('retries') as number | undefined) ?? 0) + 1;
  try {
    await ref.update(
      {
        status: 'pending',
        attempts: 0,
        leaseOwner: null,
        leaseUntil: null,
        batchKey: null,
        batchMembers: null,
        lastError: null,
        retries,
        retriedAt: input.now,
        retryHistory: FieldValue.arrayUnion({ at: input.now, lastError: row.lastError, attempts: row.attempts }),
      },
      fenceAt(snap.updateTime!),
    );
  } catch (error) {
    if (isLostPrecondition(error)) return { kind: 'lost-race' };
    throw error;
  }
  return { kind: 'retried', emailKey: input.emailKey, uid: row.uid, retries };
}
