import type { Firestore, FirestoreDataConverter } from 'firebase-admin/firestore';
import type { DeliveryMode } from '../subscribers/subscriber';
import { toDate, toTimestamp } from './timestamps';

/**
 * deliveries/{uid}_{jobId}: the ledger line that says "this posting is this subscriber's".
 * Its create() is the claim: two runs computing the same pair collide on the same id.
 *   instant: sending → sent | skipped | failed      (written before the email: at-most-once)
 *   daily:   queued → sending → sent | skipped | failed   (marked sent after the digest: at-least-once)
 */
export type DeliveryStatus = 'queued' | 'sending' | 'sent' | 'skipped' | 'failed';

export type Delivery = {
  uid: string;
  jobId: string;
  mode: DeliveryMode;
  status: DeliveryStatus;
  score: number;
  emailKey: string | null;
  /** daily only: the UTC day whose digest this item is due in. */
  digestDate: string | null;
  reason: string | null;
  runId: string;
  createdAt: Date;
  sentAt: Date | null;
  expireAt: Date;
};

export const deliveryId = (uid: string, jobId: string) => `${uid}_${jobId}`;

export const deliveryConverter: FirestoreDataConverter<Delivery> = {
  toFirestore: (d) => ({
    ...d,
    createdAt: toTimestamp(d.createdAt as Date),
    sentAt: toTimestamp(d.sentAt as Date | null),
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
      emailKey: d.emailKey ?? null,
      digestDate: d.digestDate ?? null,
      reason: d.reason ?? null,
      runId: d.runId,
      createdAt: toDate(d.createdAt)!,
      sentAt: toDate(d.sentAt),
      expireAt: toDate(d.expireAt)!,
    };
  },
};

export const deliveriesCollection = (db: Firestore) => db.collection('deliveries').withConverter(deliveryConverter);
