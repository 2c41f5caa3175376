import type { Firestore, FirestoreDataConverter } from 'firebase-admin/firestore';
import type { DeliveryMode } from '../subscribers/subscriber';
import { toDate, toTimestamp } from './timestamps';

/**
 * deliveries/{uid}_{jobId}: the ledger line that says "this posting is this subscriber's", with
 * the verdict (score, reasons) that made it so. Its create() is the claim: two runs computing the
 * same pair collide on the same id.
 *   instant: created `sending`, in one batch with its alert's outbox row (at-most-once)
 *   daily:   created `queued`; the digest claim moves it to `sending` with the digest's row
 *   either:  `skipped` when closed without an email (opt-out, mode change, caps)
 * Once `sending`, the delivery is bound to the outbox row `emailKey` and that row's status is its
 * outcome (see delivery-outcome.ts): the send records one row, not every delivery it carried.
 */
export type DeliveryStatus = 'queued' | 'sending' | 'skipped';

export type Delivery = {
  uid: string;
  jobId: string;
  mode: DeliveryMode;
  status: DeliveryStatus;
  score: number;
  reasons: string[];
  emailKey: string | null;
  /** daily only: the UTC day whose digest this item is due in. */
  digestDate: string | null;
  reason: string | null;
  runId: string;
  createdAt: Date;
  expireAt: Date;
};

export const deliveryId = (uid: string, jobId: string) => `${uid}_${jobId}`;

export const deliveryConverter: FirestoreDataConverter<Delivery> = {
  toFirestore: (d) => ({
    ...d,
    createdAt: toTimestamp(d.createdAt as Date),
    expireAt: toTimestamp(d.expireAt as Date),
  }),
  fromFirestore: (snap) => {
    const d = snap.data();
    return {
      uid: d.uid,
      jobId: d.jobId,
      mode: d.mode,
      status: d.status,
      score: d.score,
      reasons: d.reasons ?? [],
      emailKey: d.emailKey ?? null,
      digestDate: d.digestDate ?? null,
      reason: d.reason ?? null,
      runId: d.runId,
      createdAt: toDate(d.createdAt)!,
      expireAt: toDate(d.expireAt)!,
    };
  },
};

export const deliveriesCollection = (db: Firestore) => db.collection('deliveries').withConverter(deliveryConverter);
