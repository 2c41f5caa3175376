import type { Firestore, Timestamp } from 'firebase-admin/firestore';
import { deliveriesCollection } from '../ledger/delivery';
import { isLostPrecondition } from '../ledger/firestore-errors';
import { subscribersCollection, type Subscriber } from '../subscribers/subscriber';
import { MAY_RECEIVE, outboxCollection, type OutboxRow } from './outbox-row';

/** The provider keeps an Idempotency-Key 24 h; we stay an hour inside that. */
export const PROVIDER_KEY_WINDOW_MS = 23 * 3_600_000;

export type Lease = { emailKey: string; row: OutboxRow; updateTime: Timestamp; attempts: number };

export type LeaseResult =
  | { kind: 'leased'; lease: Lease }
  | { kind: 'not-ours' } // finished, or someone else holds a live lease, or took it first
  | { kind: 'skipped'; reason: string }
  | { kind: 'failed'; reason: string };

/**
 * Takes an outbox row for sending. The row and its subscriber are read together, and the
 * write that takes the lease is guarded by the row's lastUpdateTime: if anyone changed it since
 * we read, our lease is refused and we walk away. The subscriber's status is checked in the same
 * step, so an opt-out that lands before the lease is honoured.
 */
export async function leaseRow(
  db: Firestore,
  input: { emailKey: string; uid: string; runId: string; now: Date; leaseMs: number },
): Promise<LeaseResult> {
  const rowRef = outboxCollection(db).doc(input.emailKey);
  const [rowSnap, subscriberSnap] = await db.getAll(rowRef, subscribersCollection(db).doc(input.uid));
  const row = rowSnap.exists ? (rowSnap.data() as OutboxRow) : undefined;
  if (!row || !rowSnap.updateTime) return { kind: 'not-ours' };
  const live = row.status === 'sending' && row.leaseUntil !== null && row.leaseUntil > input.now;
  if ((row.status !== 'pending' && row.status !== 'sending') || live) return { kind: 'not-ours' };

  const guard = { lastUpdateTime: rowSnap.updateTime };
  const subscriber = subscriberSnap.exists ? (subscriberSnap.data() as Subscriber) : undefined;
  if (!subscriber || !MAY_RECEIVE[row.kind].includes(subscriber.status)) {
    const reason = `subscriber_${subscriber?.status ?? 'deleted'}`;
    return (await closeRow(db, {
      emailKey: input.emailKey,
      row,
      guard,
      rowStatus: 'skipped',
      deliveryStatus: 'skipped',
      reason,
      now: input.now,
    }))
      ? { kind: 'skipped', reason }
      : { kind: 'not-ours' };
  }

  // A row left `sending` by a holder that died may or may not have reached the provider. An
  // alert may be retried only under the same key inside the provider's key window; past it, it is
  // given up as a visible loss instead of risking a second copy. A digest is always retried.
  const firstAttempt = row.firstAttemptAt;
  if (
    row.status === 'sending' &&
    row.kind === 'alert' &&
    firstAttempt &&
    input.now.getTime() - firstAttempt.getTime() > PROVIDER_KEY_WINDOW_MS
  ) {
    const reason = 'unknown_outcome';
    return (await closeRow(db, {
      emailKey: input.emailKey,
      row,
      guard,
      rowStatus: 'failed',
      deliveryStatus: 'failed',
      reason,
      now: input.now,
    }))
      ? { kind: 'failed', reason }
      : { kind: 'not-ours' };
  }

  try {
    const attempts = row.attempts + 1;
    const result = await rowRef.update(
      {
        status: 'sending',
        leaseOwner: input.runId,
        leaseUntil: new Date(input.now.getTime() + input.leaseMs),
        firstAttemptAt: firstAttempt ?? input.now,
        attempts,
      },
      guard,
    );
    return { kind: 'leased', lease: { emailKey: input.emailKey, row, updateTime: result.writeTime, attempts } };
  } catch (error) {
    if (isLostPrecondition(error)) return { kind: 'not-ours' };
    throw error;
  }
}

/**
 * Moves a row to a final state together with its deliveries, fenced by the version we hold.
 * Returns false when the fence held us off (the row moved on without us).
 */
export async function closeRow(
  db: Firestore,
  input: {
    emailKey: string;
    row: OutboxRow;
    guard: { lastUpdateTime: Timestamp };
    rowStatus: 'sent' | 'failed' | 'dead' | 'skipped';
    deliveryStatus: 'sent' | 'failed' | 'skipped';
    reason: string | null;
    now: Date;
    providerId?: string;
    attempts?: number;
  },
): Promise<boolean> {
  const batch = db.batch();
  const sent = input.rowStatus === 'sent';
  batch.update(
    outboxCollection(db).doc(input.emailKey),
    {
      status: input.rowStatus,
      leaseUntil: null,
      ...(sent ? { providerId: input.providerId ?? null, sentAt: input.now, lastError: null } : { lastError: input.reason }),
      ...(input.attempts !== undefined ? { attempts: input.attempts } : {}),
    },
    input.guard,
  );
  for (const id of input.row.deliveryIds) {
    batch.update(
      deliveriesCollection(db).doc(id),
      sent ? { status: 'sent', sentAt: input.now } : { status: input.deliveryStatus, reason: input.reason },
    );
  }
  try {
    await batch.commit();
    return true;
  } catch (error) {
    if (isLostPrecondition(error)) return false;
    throw error;
  }
}
