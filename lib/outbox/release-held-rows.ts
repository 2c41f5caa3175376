import type { Firestore } from 'firebase-admin/firestore';
import { isLostPrecondition } from '../store/firestore-errors';
import { outboxCollection } from './outbox-row';
import { fenceAt } from '../store/lease';

/**
 * Held rows released per run. Only signup emails past the hourly cap are ever held, spread over
 * later hours at SIGNUP_CONFIRMATIONS_PER_HOUR, so a 15-minute run finds a quarter of that; the
 * bound keeps a misconfigured cap from turning one run into a long sweep (the rest wait a run).
 */
const HELD_PER_RUN = 1_000;

/**
 * Turns the `held` rows whose `notBefore` has passed into `pending`, for the listing that follows
 * in the same run to send. Each update is guarded by the version read: runs that overlap release
 * a row once between them, and a row that moved on meanwhile (the subscriber was deleted, an
 * operator touched it) is left as it is. Returns how many rows this call released.
 */
export async function releaseHeldRows(db: Firestore, input: { now: Date }): Promise<number> {
  const due = await outboxCollection(db)
    .where('status', '==', 'held')
    .where('notBefore', '<=', input.now)
    .orderBy('notBefore')
    .select('status')
    .limit(HELD_PER_RUN)
    .get();
  const released = await Promise.all(
    due.docs.map(async (doc) => {
      try {
        await doc.ref.update({ status: 'pending' }, fenceAt(doc.updateTime));
        return 1;
      } catch (error) {
        if (isLostPrecondition(error)) return 0;
        throw error;
      }
    }),
  );
  return released.reduce((sum: number, n) => sum + n, 0);
}
