import type { Firestore } from 'firebase-admin/firestore';
import { deliveriesCollection } from '../ledger/delivery';
import { isLostPrecondition } from '../store/firestore-errors';
import { commitAtomicWrites } from '../store/atomic-writes';
import { fenceAt } from '../store/lease';

/** Passes over a subscriber's queued items before we leave what keeps moving to the send-time checks. */
const MAX_PASSES = 5;

/**
 * Closes a subscriber's `queued` deliveries as `skipped` so that an opt-out can never be undone by
 * an old item. Each close is guarded by the version we read: an item a claim or a digest's marks
 * changed in the meantime is read again. Items a digest row already lists are closed too; that
 * row's own check before the send (lease-row.ts) skips it, and its outcome then marks them again.
 * Returns how many items this call closed.
 */
export async function skipQueuedDeliveries(db: Firestore, input: { uid: string; reason: string }): Promise<number> {
  let skipped = 0;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const queued = await deliveriesCollection(db).where('uid', '==', input.uid).where('status', '==', 'queued').get();
    if (queued.empty) break;
    const committed = await commitAtomicWrites(
      db,
      queued.docs.map((doc) => ({
        size: 1,
        apply: (batch) => batch.update(doc.ref, { status: 'skipped', reason: input.reason }, fenceAt(doc.updateTime)),
      })),
      isLostPrecondition,
    );
    skipped += committed.filter(Boolean).length;
    if (committed.every(Boolean)) break;
  }
  return skipped;
}
