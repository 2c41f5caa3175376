import type { Firestore, FirestoreDataConverter } from 'firebase-admin/firestore';
import { z } from 'zod';
import { toDate, toTimestamp } from '../ledger/timestamps';
import { keywordTermSchema } from './keyword-term';

export const subscriberStatuses = ['pending', 'active', 'paused', 'unsubscribed'] as const;
export type SubscriberStatus = (typeof subscriberStatuses)[number];
export type DeliveryMode = 'instant' | 'daily';

export type Subscriber = {
  id: string;
  email: string;
  keywords: string[];
  excludes: string[];
  minBudget: number | null;
  mode: DeliveryMode;
  status: SubscriberStatus;
  timezone: string | null;
  createdAt: Date;
  confirmedAt: Date | null;
  updatedAt: Date;
};

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/** users/{base64url(lowercased, trimmed email)}: signing up twice, in any case, lands on one document. */
export const subscriberId = (email: string) => Buffer.from(normaliseEmail(email)).toString('base64url');

/** What an operator or a form may set on a subscriber; the same rules for the CLI, the import and signup. */
export const subscriberInputSchema = z.object({
  email: z.email('must be an email address').max(254),
  keywords: z.array(keywordTermSchema('keyword')).min(1, 'at least one keyword').max(25, 'at most 25 keywords'),
  excludes: z.array(keywordTermSchema('exclude')).max(25, 'at most 25 excludes').default([]),
  minBudget: z.number().nonnegative().max(10_000_000).nullable().default(null),
  mode: z.enum(['instant', 'daily']).default('instant'),
});
export type SubscriberInput = z.input<typeof subscriberInputSchema>;

export const subscriberConverter: FirestoreDataConverter<Subscriber> = {
  toFirestore: (s) => {
    const { id: _id, ...rest } = s as Subscriber;
    return {
      ...rest,
      createdAt: toTimestamp(s.createdAt as Date),
      confirmedAt: toTimestamp(s.confirmedAt as Date | null),
      updatedAt: toTimestamp(s.updatedAt as Date),
    };
  },
  fromFirestore: (snap) => {
    const d = snap.data();
    return {
      id: snap.id,
      email: d.email,
      keywords: d.keywords ?? [],
      excludes: d.excludes ?? [],
      minBudget: d.minBudget ?? null,
      mode: d.mode === 'daily' ? 'daily' : 'instant',
      status: d.status,
      timezone: d.timezone ?? null,
      createdAt: toDate(d.createdAt) ?? new Date(0),
      confirmedAt: toDate(d.confirmedAt),
      updatedAt: toDate(d.updatedAt) ?? new Date(0),
    };
  },
};

export const subscribersCollection = (db: Firestore) => db.collection('users').withConverter(subscriberConverter);

export async function listActiveSubscribers(db: Firestore): Promise<Subscriber[]> {
  const snap = await subscribersCollection(db).where('status', '==', 'active').get();
  return snap.docs.map((d) => d.data());
}
