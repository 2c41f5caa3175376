import type { Firestore } from 'firebase-admin/firestore';
import { isLostRace } from '../store/firestore-errors';
import { commitAtomicWrites, DELIVERY_BYTES } from '../store/atomic-writes';
import { updateQueuedItem, type QueuedItemUpdate } from './update-queued-item';

/**
 * Queued items moved on to a later slot (`digestDueAt`, `digestDate`), each in an atomic write of its
 * own: an item that changed since it was read is left to whoever changed it, and the others still move.
 */
export async function moveQueuedItems(db: Firestore, moves: QueuedItemUpdate[]): Promise<void> {
  if (moves.length === 0) return;
  await commitAtomicWrites(
    db,
    moves.map((move) => ({ size: 1, bytes: DELIVERY_BYTES, apply: (batch) => updateQueuedItem(batch, db, move) })),
    isLostRace,
  );
}
