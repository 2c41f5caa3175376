import { randomBytes } from 'node:crypto';
import { FieldValue, type DocumentData, type Firestore, type FirestoreDataConverter } from 'firebase-admin/firestore';
import { z } from 'zod';
import { addDays, toDate, toTimestamp, type Stored } from '../store/timestamps';
import { keywordTermSchema } from '../query/keyword-term';
import { MAX_QUERY_TEXT_LENGTH, queryTextOf, storedQueryOf } from '../query/subscriber-query';
import { QUERY_LIMITS } from '../query/query-tree';
import { aboutSchema, fitThresholdSchema, readFitThreshold } from './fit-profile';
import { COLLECTIONS } from '../store/collections';
import { channelFields, readChannels, routesOf, type Channel, type ChannelRoute } from '../channels/channel';
import { minPayInputShape, minPayOfInput, minPaySchema, readMinPay, sameMinPay, type MinPay, type MinPayInput } from '../pay/minimum-pay';
import {
  DEFAULT_TIMEZONE,
  DEFAULT_WEEKLY_DAY,
  digestHourSchema,
  timezoneSchema,
  WEEKDAYS,
  weekdaySchema,
  weekdaysSchema,
  type DigestSchedule,
  type Weekday,
} from './digest-schedule';

export const subscriberStatuses = ['pending', 'active', 'paused', 'unsubscribed'] as const;
export type SubscriberStatus = (typeof subscriberStatuses)[number];
/**
 * instant: an alert per run with new matches. daily / weekly: queued for a digest on the
 * subscriber's schedule (digest-schedule.ts). feed: no email at all; matches go straight to the
 * private feed and the archive.
 */
export const DELIVERY_MODES = ['instant', 'daily', 'weekly', 'feed'] as const;
export type DeliveryMode = (typeof DELIVERY_MODES)[number];
/** The modes whose matches wait in the queue for a digest. */
export const isDigestMode = (mode: DeliveryMode): mode is 'daily' | 'weekly' => mode === 'daily' || mode === 'weekly';

export type Subscriber = {
  id: string;
  email: string;
  /** The simple form of their query: any of these (lib/query/subscriber-query.ts). */
  keywords: string[];
  /** ...and none of these. */
  excludes: string[];
  /**
   * Their search query's text (docs/query.md): the canonical text of the keyword lists when they
   * use the simple form, or the query they wrote. Stored absent (a document from before queries,
   * until `scout users migrate-queries` writes it): the keyword lists are the query.
   */
  query?: string;
  /**
   * The least they accept per kind of pay, each in its own currency (lib/pay/minimum-pay.ts). A
   * document from before it holds `minBudget` instead, read as the fixed minimum in USD until
   * `scout users migrate-min-pay` rewrites it.
   */
  minPay: MinPay;
  mode: DeliveryMode;
  /** What they want, in their words (up to 500 characters, fit-profile.ts); '' when they said nothing. */
  about: string;
  /**
   * Goes up by one whenever something a verdict depends on changes (keywords, excludes, minPay,
   * about: `verdictProfileChanged`); verdicts are stored with it, so a changed profile is scored
   * again. New subscribers start at 1; a document written before the field reads as 0.
   */
  profileVersion: number;
  /** Postings the model rates below this (0–100) are not sent. Stored always, used only with the AI stage on. */
  fitThreshold: number;
  status: SubscriberStatus;
  /** IANA zone the digest hour and weekdays are read in; `UTC` when they chose none. */
  timezone: string;
  /** Local hour of the digest; null follows DIGEST_HOUR_UTC (the default every subscriber had before schedules). */
  digestHour: number | null;
  /** Daily: the local weekdays a digest may go out on; all seven unless they chose fewer. */
  weekdays: Weekday[];
  /** Weekly: the local weekday of the digest. */
  weeklyDay: Weekday;
  createdAt: Date;
  confirmedAt: Date | null;
  updatedAt: Date;
  /** Names the signup a confirmation link confirms; only while pending (see `pendingFields`). */
  signupNonce?: string;
  /** When the TTL policy deletes an unconfirmed signup; only while pending. */
  expireAt?: Date;
  /** Signed into the private feed URL; revoking the URL bumps it (lib/archive/revoke-feed-url.ts). Stored absent = 0. */
  feedTokenVersion?: number;
  /**
   * Signed into every emailed link (lib/subscribers/link-token.ts); an unsubscribe, a re-signup and
   * "Revoke my links" bump it, and a link of an older version opens nothing. Stored absent = 0.
   */
  linkVersion?: number;
  /** Where else their postings go (lib/channels/channel.ts); stored absent = none. */
  channels?: Channel[];
  /** Derived, never stored: the active channels as the claim and the flush route to them (the match index keeps these). */
  routes?: ChannelRoute[];
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
export const subscriberInputFields = z.object({
  email: z.email('must be an email address').max(254),
  keywords: z.array(keywordTermSchema('keyword')).max(25, 'at most 25 keywords').default([]),
  excludes: z.array(keywordTermSchema('exclude')).max(25, 'at most 25 excludes').default([]),
  // A written query (docs/query.md): when given, it is the subscription and the lists are read from it.
  query: z
    .string()
    .max(MAX_QUERY_TEXT_LENGTH, `at most ${QUERY_LIMITS.length} characters`)
    .optional(),
  // The minimums as typed (minFixed, minHourly, minYearly, minCurrency, and the old minBudget), or
  // `minPay` as stored; `minPayOfSubscriberInput` says which wins.
  minFixed: minPayInputShape.minFixed.optional(),
  minHourly: minPayInputShape.minHourly.optional(),
  minYearly: minPayInputShape.minYearly.optional(),
  minCurrency: minPayInputShape.minCurrency.optional(),
  minBudget: minPayInputShape.minBudget.optional(),
  minPay: minPaySchema.optional(),
  mode: z.enum(DELIVERY_MODES).default('instant'),
  // Absent: the defaults for a new subscriber (UTC, DIGEST_HOUR_UTC, every day, Monday), kept as they are on an existing one.
  timezone: timezoneSchema.optional(),
  digestHour: digestHourSchema.nullable().optional(),
  weekdays: weekdaysSchema.optional(),
  weeklyDay: weekdaySchema.optional(),
  // Absent: '' / DEFAULT_FIT_THRESHOLD for a new subscriber, and left as it is on an existing one
  // (an import without an about column must not wipe what the subscriber wrote).
  about: aboutSchema.optional(),
  fitThreshold: fitThresholdSchema.optional(),
});

/** The input as a whole: a written query must parse, and without one there must be a keyword. */
export const subscriberInputSchema = subscriberInputFields.superRefine((input, ctx) => {
  const written = input.query?.trim();
  if (!written && input.keywords.length === 0) ctx.addIssue({ code: 'custom', path: ['keywords'], message: 'at least one keyword' });
  const stored = written ? storedQueryOf(input) : null;
  if (stored && !stored.ok) ctx.addIssue({ code: 'custom', path: ['query'], message: stored.error.message });
});
export type SubscriberInput = z.input<typeof subscriberInputSchema>;

/** The minimums an operator's input sets: `minPay` as given, else the typed fields (none when it sends neither). */
export const minPayOfSubscriberInput = (parsed: MinPayInput & { minPay?: MinPay }): MinPay => parsed.minPay ?? minPayOfInput(parsed);

/** What a verdict depends on: a change to any of these bumps `profileVersion`. */
export type VerdictProfile = Pick<Subscriber, 'keywords' | 'excludes' | 'minPay' | 'about' | 'query'>;

/**
 * Compared by meaning: an old `minBudget` of 500 and a `minPay.fixed` of $500 are the same
 * profile, and so are keyword lists without a stored query and the same lists with their
 * canonical query (the migration writes it without changing what anyone receives).
 */
export const verdictProfileChanged = (a: VerdictProfile, b: VerdictProfile) =>
  JSON.stringify([a.keywords, a.excludes, queryTextOf(a), a.about]) !== JSON.stringify([b.keywords, b.excludes, queryTextOf(b), b.about]) ||
  !sameMinPay(a.minPay, b.minPay);

/** The version a new subscriber starts at; a stored document without one reads as 0. */
export const FIRST_PROFILE_VERSION = 1;
export const readProfileVersion = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0);

/**
 * A subscriber from its stored fields, tolerant of documents written before a field existed (each
 * reads as its default). The converter's reading, and the match index's (match-index.ts), which
 * must derive an entry from the fields an update is about to write.
 */
export function readSubscriberFields(id: string, data: DocumentData): Subscriber {
  const d = data as Stored<Omit<Subscriber, 'id'>>;
  const expireAt = toDate(d.expireAt);
  return {
    id,
    email: d.email,
    keywords: d.keywords ?? [],
    excludes: d.excludes ?? [],
    ...(typeof d.query === 'string' ? { query: d.query } : {}),
    minPay: readMinPay(data),
    mode: (DELIVERY_MODES as readonly string[]).includes(d.mode) ? d.mode : 'instant',
    about: typeof d.about === 'string' ? d.about : '',
    profileVersion: readProfileVersion(d.profileVersion),
    fitThreshold: readFitThreshold(d.fitThreshold),
    status: d.status,
    timezone: typeof d.timezone === 'string' && d.timezone ? d.timezone : DEFAULT_TIMEZONE,
    digestHour: typeof d.digestHour === 'number' ? d.digestHour : null,
    weekdays: Array.isArray(d.weekdays) && d.weekdays.length > 0 ? WEEKDAYS.filter((w) => d.weekdays.includes(w)) : [...WEEKDAYS],
    weeklyDay: (WEEKDAYS as readonly string[]).includes(d.weeklyDay) ? d.weeklyDay : DEFAULT_WEEKLY_DAY,
    createdAt: toDate(d.createdAt) ?? new Date(0),
    confirmedAt: toDate(d.confirmedAt),
    updatedAt: toDate(d.updatedAt) ?? new Date(0),
    feedTokenVersion: readProfileVersion(d.feedTokenVersion),
    linkVersion: readProfileVersion(d.linkVersion),
    ...channelsOf(data),
    ...(typeof d.signupNonce === 'string' ? { signupNonce: d.signupNonce } : {}),
    ...(expireAt ? { expireAt } : {}),
  };
}

/** The stored channels and their routes; nothing when the subscriber has none (most documents). */
function channelsOf(data: DocumentData): Pick<Subscriber, 'channels' | 'routes'> {
  const channels = readChannels(data.channels);
  return channels.length > 0 ? { channels, routes: routesOf(channels) } : {};
}

export const subscriberConverter: FirestoreDataConverter<Subscriber> = {
  toFirestore: (s) => {
    const { id: _id, signupNonce, expireAt, channels, routes: _routes, ...rest } = s as Subscriber;
    return {
      ...rest,
      ...(channels ? channelFields(channels) : {}),
      createdAt: toTimestamp(s.createdAt as Date),
      confirmedAt: toTimestamp(s.confirmedAt as Date | null),
      updatedAt: toTimestamp(s.updatedAt as Date),
      // Absent rather than null when not pending: the TTL policy must find nothing on an active subscriber.
      ...(signupNonce ? { signupNonce } : {}),
      ...(expireAt ? { expireAt: toTimestamp(expireAt) } : {}),
    };
  },
  fromFirestore: (snap) => readSubscriberFields(snap.id, snap.data()),
};

/** The schedule fields a new subscriber gets when they chose none: 08:00 UTC (DIGEST_HOUR_UTC) every day. */
export const defaultScheduleFields = (): Pick<Subscriber, 'timezone' | 'digestHour' | 'weekdays' | 'weeklyDay'> => ({
  timezone: DEFAULT_TIMEZONE,
  digestHour: null,
  weekdays: [...WEEKDAYS],
  weeklyDay: DEFAULT_WEEKLY_DAY,
});

/** The schedule fields an input set (an import or the CLI may leave any of them out: those stay as they are). */
export function definedScheduleFields(input: {
  timezone?: string;
  digestHour?: number | null;
  weekdays?: Weekday[];
  weeklyDay?: Weekday;
}): Partial<Pick<Subscriber, 'timezone' | 'digestHour' | 'weekdays' | 'weeklyDay'>> {
  return Object.fromEntries(
    (['timezone', 'digestHour', 'weekdays', 'weeklyDay'] as const).filter((k) => input[k] !== undefined).map((k) => [k, input[k]]),
  );
}

/** Do two subscribers' schedules say the same (a form that changes nothing of it must not move their queue)? */
export const sameSchedule = (a: Pick<Subscriber, 'timezone' | 'digestHour' | 'weekdays' | 'weeklyDay'>, b: typeof a) =>
  a.timezone === b.timezone && a.digestHour === b.digestHour && a.weekdays.join() === b.weekdays.join() && a.weeklyDay === b.weeklyDay;

/** A digest subscriber's schedule, with the deployment's default hour for one who chose none; null for instant and feed. */
export function digestScheduleOf(
  subscriber: Pick<Subscriber, 'mode' | 'timezone' | 'digestHour' | 'weekdays' | 'weeklyDay'>,
  defaultHour: number,
): DigestSchedule | null {
  if (!isDigestMode(subscriber.mode)) return null;
  // Each field falls back to the default on its own: a subscriber written before schedules has none of them.
  return {
    cadence: subscriber.mode,
    timezone: subscriber.timezone || DEFAULT_TIMEZONE,
    hour: subscriber.digestHour ?? defaultHour,
    weekdays: subscriber.weekdays?.length ? subscriber.weekdays : WEEKDAYS,
    weeklyDay: subscriber.weeklyDay ?? DEFAULT_WEEKLY_DAY,
  };
}

export const subscribersCollection = (db: Firestore) => db.collection(COLLECTIONS.subscribers).withConverter(subscriberConverter);

export async function listActiveSubscribers(db: Firestore): Promise<Subscriber[]> {
  const snap = await subscribersCollection(db).where('status', '==', 'active').get();
  return snap.docs.map((d) => d.data());
}
