import type { Firestore, WriteBatch } from 'firebase-admin/firestore';
import { DELIVERY_BYTES, type AtomicWrite } from '../store/atomic-writes';
import { deliveryRef, type Delivery } from './delivery';

/** Creates per atomic write beyond an alert's own: far under a commit's 500 writes, so several subscribers' atomic writes still pack together. */
const CREATES_PER_ATOMIC_WRITE = 100;

/** A delivery's create(): the check that no other run has claimed the pair (it fails when one has). */
export const createDelivery = (batch: WriteBatch, db: Firestore, d: Delivery) => batch.create(deliveryRef(db, d.uid, d.jobId), d);

/**
 * Deliveries that stand alone, CREATES_PER_ATOMIC_WRITE to an atomic write: each create is its own check,
 * and a busy day can bring one subscriber more than one commit holds.
 */
export function createDeliveries(db: Firestore, deliveries: Delivery[]): AtomicWrite[] {
  const writes: AtomicWrite[] = [];
  for (let i = 0; i < deliveries.length; i += CREATES_PER_ATOMIC_WRITE) {
    const part = deliveries.slice(i, i + CREATES_PER_ATOMIC_WRITE);
    writes.push({
      size: part.length,
      bytes: part.length * DELIVERY_BYTES,
      apply(batch) {
        for (const d of part) createDelivery(batch, db, d);
      },
    });
  }
  return writes;
}
