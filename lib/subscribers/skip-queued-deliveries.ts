import type { Firestore, QueryDocumentSnapshot } from 'firebase-admin/firestore';
import { MAX_BATCH_WRITES } from '../ledger/create-documents';
import { deliveriesCollection, type Delivery } from '../ledger/delivery';
import { isLostPrecondition } from '../ledger/firestore-errors';

/** Passes in a row that close nothing (every item moved on under us) before we leave the rest to the send-time checks. */
const MAX_IDLE_PASSES = 3;

/**
 * Closes a subscriber's `queued` deliveries as `skipped` so that an opt-out can never be undone by
 * an old item. Each update is guarded by the version we read: an item a digest took (`sending`)
 * in the meantime is left to the dispatcher, whose own check before the send skips it.
 * Returns how many items this call closed.
 */
export async function skipQueuedDeliveries(db: Firestore, input: { uid: string; reason: string }): Promise<number> {
  const query = deliveriesCollection(db).where('uid', '==', input.uid).where('status', '==', 'queued').limit(MAX_BATCH_WRITES);
  let skipped = 0;
  let idle = 0;
  while (idle < MAX_IDLE_PASSES) {
    const snap = await query.get();
    if (snap.empty) break;
    const closed = await closeItems(db, snap.docs, input.reason);
    skipped += closed;
    idle = closed === 0 ? idle + 1 : 0;
  }
  return skipped;
}

async function closeItems(db: Firestore, docs: QueryDocumentSnapshot<Delivery>[], reason: string): Promise<number> {
  const batch = db.batch();
  for (const doc of docs) batch.update(doc.ref, { status: 'skipped', reason }, { lastUpdateTime: doc.updateTime });
  try {
    await batch.commit();
    return docs.length;
  } catch (error) {
    if (!isLostPrecondition(error)) throw error;
  }
  // Someone changed one of them since we read: close the rest one by one, each under its own guard.
  const outcomes = await Promise.all(
    docs.map(async (doc) => {
      try {
        await doc.ref.update({ status: 'skipped', reason }, { lastUpdateTime: doc.updateTime });
        return true;
      } catch (error) {
        if (isLostPrecondition(error)) return false;
        throw error;
      }
    }),
  );
  return outcomes.filter(Boolean).length;
}
