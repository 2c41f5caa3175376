import { randomBytes } from 'node:crypto';
import { FieldValue, type Firestore, type FirestoreDataConverter } from 'firebase-admin/firestore';
import { z } from 'zod';
import { addDays, toDate, toTimestamp } from '../store/timestamps';
import { keywordTermSchema } from './keyword-term';
import { aboutSchema, fitThresholdSchema, readFitThreshold } from './fit-profile';
import { COLLECTIONS } from '../store/collections';

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
  /** What they want, in their words (up to 500 characters, fit-profile.ts); '' when they said nothing. */
  about: string;
  /**
   * Goes up by one whenever something a verdict depends on changes (keywords, excludes, minBudget,
   * about: `verdictProfileChanged`); verdicts are stored with it, so a changed profile is scored
   * again. New subscribers start at 1; a document written before the field reads as 0.
   */
  profileVersion: number;
  /** Postings the model rates below this (0–100) are not sent. Stored always, used only with the AI stage on. */
  fitThreshold: number;
  status: SubscriberStatus;
  timezone: string | null;
  createdAt: Date;
  confirmedAt: Date | null;
  updatedAt: Date;
  /** Names the signup a confirmation link confirms; only while pending (see `pendingFields`). */
  signupNonce?: string;
  /** When the TTL policy deletes an unconfirmed signup; only while pending. */
  expireAt?: Date;
  /** Signed into the private feed URL; revoking the URL bumps it (lib/archive/revoke-feed-url.ts). Stored absent = 0. */
  feedTokenVersion?: number;
};

/**
 * How long an unconfirmed signup is kept after its last signup: longer than its confirmation link
 * works (2 days), so a live link never points at a deleted subscriber.
 */
export const PENDING_SIGNUP_DAYS = 7;

/** A fresh nonce for a signup: 128 random bits, base64url. */
export const newSignupNonce = () => randomBytes(16).toString('base64url');

/**
 * The fields a signup that leaves the subscriber pending writes. An address that once unsubscribed
 * gets no `expireAt`: its document is the record of that opt-out (an import never revives it), and
 * an unconfirmed re-signup by anyone must not be able to get it deleted.
 */
export function pendingFields(input: { nonce: string; now: Date; holdsOptOut: boolean }) {
  return {
    signupNonce: input.nonce,
    expireAt: input.holdsOptOut ? FieldValue.delete() : addDays(input.now, PENDING_SIGNUP_DAYS),
  };
}

/**
 * What every way out of pending (confirming, unsubscribing, the operator adding them) writes in
 * the same update as the new status: an active subscriber carrying `expireAt` would be deleted by
 * the TTL policy, and a used nonce must not confirm anything again.
 */
export const leavePendingFields = () => ({ signupNonce: FieldValue.delete(), expireAt: FieldValue.delete() });

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
  // Absent: '' / DEFAULT_FIT_THRESHOLD for a new subscriber, and left as it is on an existing one
  // (an import without an about column must not wipe what the subscriber wrote).
  about: aboutSchema.optional(),
  fitThreshold: fitThresholdSchema.optional(),
});
export type SubscriberInput = z.input<typeof subscriberInputSchema>;

/** What a verdict depends on: a change to any of these bumps `profileVersion`. */
export type VerdictProfile = Pick<Subscriber, 'keywords' | 'excludes' | 'minBudget' | 'about'>;

export const verdictProfileChanged = (a: VerdictProfile, b: VerdictProfile) =>
  JSON.stringify([a.keywords, a.excludes, a.minBudget, a.about]) !== JSON.stringify([b.keywords, b.excludes, b.minBudget, b.about]);

/** The version a new subscriber starts at; a stored document without one reads as 0. */
export const FIRST_PROFILE_VERSION = 1;
export const readProfileVersion = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0);

export const subscriberConverter: FirestoreDataConverter<Subscriber> = {
  toFirestore: (s) => {
    const { id: _id, signupNonce, expireAt, ...rest } = s as Subscriber;
    return {
      ...rest,
      createdAt: toTimestamp(s.createdAt as Date),
      confirmedAt: toTimestamp(s.confirmedAt as Date | null),
      updatedAt: toTimestamp(s.updatedAt as Date),
      // Absent rather than null when not pending: the TTL policy must find nothing on an active subscriber.
      ...(signupNonce ? { signupNonce } : {}),
      ...(expireAt ? { expireAt: toTimestamp(expireAt) } : {}),
    };
  },
  fromFirestore: (snap) => {
    const d = snap.data();
    const expireAt = toDate(d.expireAt);
    return {
      id: snap.id,
      email: d.email,
      keywords: d.keywords ?? [],
      excludes: d.excludes ?? [],
      minBudget: d.minBudget ?? null,
      mode: d.mode === 'daily' ? 'daily' : 'instant',
      about: typeof d.about === 'string' ? d.about : '',
      profileVersion: readProfileVersion(d.profileVersion),
      fitThreshold: readFitThreshold(d.fitThreshold),
      status: d.status,
      timezone: d.timezone ?? null,
      createdAt: toDate(d.createdAt) ?? new Date(0),
      confirmedAt: toDate(d.confirmedAt),
      updatedAt: toDate(d.updatedAt) ?? new Date(0),
      feedTokenVersion: readProfileVersion(d.feedTokenVersion),
      ...(typeof d.signupNonce === 'string' ? { signupNonce: d.signupNonce } : {}),
      ...(expireAt ? { expireAt } : {}),
    };
  },
};

export const subscribersCollection = (db: Firestore) => db.collection(COLLECTIONS.subscribers).withConverter(subscriberConverter);

export async function listActiveSubscribers(db: Firestore): Promise<Subscriber[]> {
  const snap = await subscribersCollection(db).where('status', '==', 'active').get();
  return snap.docs.map((d) => d.data());
}
