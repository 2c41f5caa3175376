import type { Firestore, WriteBatch } from 'firebase-admin/firestore';
import { DELIVERY_BYTES, type WriteGroup } from '../store/write-groups';
import { deliveryRef, type Delivery } from './delivery';

/** Creates per write group beyond an alert's own: far under a commit's 500 writes, so several subscribers' groups still pack together. */
const CREATES_PER_GROUP = 100;

/** A delivery's create(): the check that no other run has claimed the pair (it fails when one has). */
export const createDelivery = (batch: WriteBatch, db: Firestore, d: Delivery) => batch.create(deliveryRef(db, d.uid, d.jobId), d);

/**
 * Deliveries that stand alone, CREATES_PER_GROUP to a write group: each create is its own check,
 * and a busy day can bring one subscriber more than one commit holds.
 */
export function createDeliveries(db: Firestore, deliveries: Delivery[]): WriteGroup[] {
  const groups: WriteGroup[] = [];
  for (let i = 0; i < deliveries.length; i += CREATES_PER_GROUP) {
    const part = deliveries.slice(i, i + CREATES_PER_GROUP);
    groups.push({
      size: part.length,
      bytes: part.length * DELIVERY_BYTES,
      apply(batch) {
        for (const d of part) createDelivery(batch, db, d);
      },
    });
  }
  return groups;
}
