import type { Firestore } from 'firebase-admin/firestore';
import { deliveriesCollection, type Delivery } from '../ledger/delivery';
import { digestEmailKey, outboxCollection } from '../outbox/outbox-row';
import { currentPeriod, dueSlotFor } from '../subscribers/digest-schedule';
import { digestScheduleOf, type Subscriber } from '../subscribers/subscriber';
import { isLostPrecondition } from '../store/firestore-errors';
import { commitAtomicWrites } from '../store/atomic-writes';
import { fenceAt } from '../store/lease';

/** Passes over the queue before what keeps moving is left to the flush (which moves items itself). */
const MAX_PASSES = 5;

/**
 * After a change of schedule or cadence (zone, hour, weekdays, daily ↔ weekly), the subscriber's
 * queued items are due where the new schedule puts the next digest not yet claimed: each item's
 * `digestDueAt` and period move there, in updates guarded by the version read. Nothing is closed,
 * so no queued item is lost by a change; and since the digest key is the local period, a change
 * mid-day can never bring a second digest for a day that already had one — the flush finds that
 * period claimed and moves the items on. Returns how many items moved.
 */
export async function rescheduleQueuedDigests(
  db: Firestore,
  input: { subscriber: Subscriber; now: Date; digestHourUtc: number },
): Promise<number> {
  const schedule = digestScheduleOf(input.subscriber, input.digestHourUtc);
  if (!schedule || input.subscriber.status !== 'active') return 0;
  const { period, slotPassed } = currentPeriod(schedule, input.now);
  const claimed = slotPassed && (await outboxCollection(db).doc(digestEmailKey(input.subscriber.id, period)).get()).exists;
  const due = dueSlotFor(schedule, input.now, claimed);
  const moves = (d: Delivery) => d.digestDueAt?.getTime() !== due.dueAt.getTime() || d.digestDate !== due.period;
  let moved = 0;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const queued = await deliveriesCollection(db).where('uid', '==', input.subscriber.id).where('status', '==', 'queued').get();
    const moving = queued.docs.filter((doc) => moves(doc.data()));
    if (moving.length === 0) break;
    const committed = await commitAtomicWrites(
      db,
      moving.map((doc) => ({
        size: 1,
        apply: (batch) => batch.update(doc.ref, { digestDueAt: due.dueAt, digestDate: due.period }, fenceAt(doc.updateTime)),
      })),
      isLostPrecondition,
    );
    moved += committed.filter(Boolean).length;
    if (committed.every(Boolean)) break;
  }
  return moved;
}
