import type { Firestore } from 'firebase-admin/firestore';
import { deliveriesCollection } from '../ledger/delivery';
import { readDeliveryOutcomes, type DeliveryOutcome } from './delivery-outcome';
import { toDate } from '../store/timestamps';
import { outboxCollection } from '../outbox/outbox-row';
import { subscribersCollection, type Subscriber } from '../subscribers/subscriber';
import { COLLECTIONS } from '../store/collections';

/** One subscriber as the operator sees them: who they are, what they were matched, what was sent. */
export type SubscriberHistory = {
  subscriber: Subscriber;
  /** Newest delivery first. */
  deliveries: (DeliveryOutcome & { score: number; createdAt: Date; title: string | null })[];
  /** Their outbox rows, newest first, without payload bodies. */
  emails: SubscriberEmail[];
};

export type SubscriberEmail = {
  emailKey: string;
  kind: string;
  status: string;
  attempts: number;
  subject: string | null;
  lastError: string | null;
  createdAt: Date | null;
  sentAt: Date | null;
  deliveries: number;
  retries: number;
};

export const HISTORY_LIMITS = { deliveries: 50, emails: 25 } as const;

/**
 * Bounded reads: the subscriber, their newest deliveries (index: uid, createdAt desc), the outbox
 * rows those deliveries are bound to (one getAll, inside readDeliveryOutcomes), the postings'
 * titles (one getAll), and their newest emails (index: uid, createdAt desc).
 */
export async function readSubscriberHistory(db: Firestore, input: { uid: string }): Promise<SubscriberHistory | null> {
  const [subscriberSnap, deliveriesSnap, emailsSnap] = await Promise.all([
    subscribersCollection(db).doc(input.uid).get(),
    deliveriesCollection(db).where('uid', '==', input.uid).orderBy('createdAt', 'desc').limit(HISTORY_LIMITS.deliveries).get(),
    outboxCollection(db)
      .where('uid', '==', input.uid)
      .orderBy('createdAt', 'desc')
      .select('kind', 'status', 'attempts', 'payload.subject', 'lastError', 'createdAt', 'sentAt', 'deliveryIds', 'retries')
      .limit(HISTORY_LIMITS.emails)
      .get(),
  ]);
  const subscriber = subscriberSnap.data();
  if (!subscriber) return null;

  // Newest first (ties by job id, as a run creates many at once); the outcome join reads only the rows these are bound to.
  const shown = deliveriesSnap.docs
    .map((d) => d.data())
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || a.jobId.localeCompare(b.jobId));
  const outcomes = await readDeliveryOutcomes(db, shown);
  const outcomeByJob = new Map(outcomes.map((o) => [o.jobId, o]));
  const jobIds = shown.map((d) => d.jobId);
  // Titles only (a field mask): the postings' descriptions stay in the store. At most 50 ids, one request.
  const postings =
    jobIds.length > 0 ? await db.getAll(...jobIds.map((id) => db.collection(COLLECTIONS.postings).doc(id)), { fieldMask: ['title'] }) : [];
  const titleByJob = new Map(jobIds.map((id, i) => [id, (postings[i].get('title') as string | undefined) ?? null]));

  return {
    subscriber,
    deliveries: shown.map((delivery) => ({
      ...outcomeByJob.get(delivery.jobId)!,
      score: delivery.score,
      createdAt: delivery.createdAt,
      title: titleByJob.get(delivery.jobId) ?? null,
    })),
    emails: emailsSnap.docs.map((d) => ({
      emailKey: d.id,
      kind: (d.get('kind') as string | undefined) ?? '',
      status: (d.get('status') as string | undefined) ?? '',
      attempts: (d.get('attempts') as number | undefined) ?? 0,
      subject: (d.get('payload.subject') as string | undefined) ?? null,
      lastError: (d.get('lastError') as string | null | undefined) ?? null,
      createdAt: toDate(d.get('createdAt')),
      sentAt: toDate(d.get('sentAt')),
      deliveries: (d.get('deliveryIds') as string[] | undefined)?.length ?? 0,
      retries: (d.get('retries') as number | undefined) ?? 0,
    })),
  };
}
