import type { Firestore } from 'firebase-admin/firestore';
import { deliveriesCollection, deliveryPageId, pendingDigestOf, type Delivery, type DeliveryStatus } from '../../lib/ledger/delivery';

const PAGE_DAY = '2026-11-30';

/** Puts one delivery on its subscriber's page as a test's starting state (the cycle's own claims go through claimDeliveries). */
export async function putDelivery(
  db: Firestore,
  input: { uid: string; jobId: string; status: DeliveryStatus; mode?: Delivery['mode']; emailKey?: string | null; now: Date },
): Promise<void> {
  const ref = deliveriesCollection(db).doc(deliveryPageId(input.uid, PAGE_DAY));
  const page = (await ref.get()).data() ?? {
    uid: input.uid,
    day: PAGE_DAY,
    deliveries: {},
    pendingDigest: null,
    expireAt: new Date('2026-12-30T00:00:00Z'),
  };
  const mode = input.mode ?? 'daily';
  page.deliveries[input.jobId] = {
    jobId: input.jobId,
    mode,
    status: input.status,
    score: 70,
    reasons: ['keyword: react'],
    emailKey: input.emailKey ?? null,
    digestDate: mode === 'daily' ? PAGE_DAY : null,
    reason: null,
    runId: 'run-test',
    createdAt: input.now,
  };
  page.pendingDigest = pendingDigestOf(Object.values(page.deliveries));
  await ref.set(page);
}

/** Every delivery of one subscriber, across their pages, in job id order. */
export async function deliveriesOf(db: Firestore, uid: string): Promise<Delivery[]> {
  const pages = await deliveriesCollection(db).where('uid', '==', uid).get();
  return pages.docs.flatMap((d) => Object.values(d.data().deliveries)).sort((a, b) => a.jobId.localeCompare(b.jobId));
}
