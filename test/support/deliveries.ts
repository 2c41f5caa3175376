import type { Firestore } from 'firebase-admin/firestore';
import { deliveryRef, deliveriesCollection, type Delivery, type DeliveryStatus } from '../../lib/ledger/delivery';

const DIGEST_DAY = '2026-11-30';

/** Puts one delivery in the ledger as a test's starting state (the cycle's own claims go through claimDeliveries). */
export async function putDelivery(
  db: Firestore,
  input: { uid: string; jobId: string; status: DeliveryStatus; mode?: Delivery['mode']; emailKey?: string | null; now: Date },
): Promise<void> {
  const mode = input.mode ?? 'daily';
  await deliveryRef(db, input.uid, input.jobId).set({
    uid: input.uid,
    jobId: input.jobId,
    mode,
    status: input.status,
    score: 70,
    reasons: ['keyword: react'],
    emailKey: input.emailKey ?? null,
    digestDate: mode === 'daily' ? DIGEST_DAY : null,
    reason: null,
    runId: 'run-test',
    createdAt: input.now,
    sentAt: null,
    expireAt: new Date('2026-12-30T00:00:00Z'),
  });
}

/** Every delivery of one subscriber, in job id order. */
export async function deliveriesOf(db: Firestore, uid: string): Promise<Delivery[]> {
  const snap = await deliveriesCollection(db).where('uid', '==', uid).get();
  return snap.docs.map((d) => d.data()).sort((a, b) => a.jobId.localeCompare(b.jobId));
}
