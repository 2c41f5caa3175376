import type { Firestore, Timestamp, WriteBatch } from 'firebase-admin/firestore';
import { deliveriesCollection, deliveryId, type Delivery } from './delivery';
import { fenceAt } from '../store/lease';

/**
 * A change to a queued item (a close, its verdict, a later slot), guarded by the version the
 * flush read: an item that changed since (an opt-out, a mark, another flush) is never
 * overwritten, and the commit that carries it loses instead.
 */
export type QueuedItemUpdate = { delivery: Pick<Delivery, 'uid' | 'jobId'>; version: Timestamp; fields: Partial<Delivery> };

export const updateQueuedItem = (batch: WriteBatch, db: Firestore, update: QueuedItemUpdate) =>
  batch.update(
    deliveriesCollection(db).doc(deliveryId(update.delivery.uid, update.delivery.jobId)),
    update.fields,
    fenceAt(update.version),
  );
