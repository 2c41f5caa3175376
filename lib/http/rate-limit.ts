import { createHmac } from 'node:crypto';
import { FieldValue, type DocumentReference, type DocumentSnapshot, type Firestore } from 'firebase-admin/firestore';
import { isAlreadyExists } from '../store/firestore-errors';
import { DAY_MS, utcDay } from '../store/timestamps';
import { COLLECTIONS } from '../store/collections';

/**
 * Limits on the public signup, kept in Firestore: serverless instances share no memory, so a
 * limit in a module variable would be one limit per warm instance. Every document here carries
 * `expireAt` for the TTL policy; none is ever read after its window, so a late TTL sweep is harmless.
 *
 *   rateLimits/mailbox_{hmac(mailbox)}_w{10-minute window}  created by the one request that may email this mailbox in the window
 *   rateLimits/mailbox_{hmac(mailbox)}_d{YYYY-MM-DD}        emails sent to this mailbox that UTC day
 *   rateLimits/signup-emails_h{hour}                        emails the signup form caused that hour (sent in it or delayed into it), all mailboxes together
 *   rateLimits/signup-email_h{hour}_p{n}                    the n-th of that hour's SIGNUP_CONFIRMATIONS_PER_HOUR places, created by the email that takes it
 *   rateLimits/signup-emails-frontier                       the first hour that may have a free place, once a backlog has formed
 *
 * The limits per client address (the signup's rateLimits/client_{hmac(address)}_h{hour}, the
 * preview's, the ops login's) are each a policy on the one limiter, client-limit.ts.
 *
 * A mailbox is the address with its `+tag` removed (mailbox.ts), so plus-variants share one allowance.
 */
export const SIGNUP_LIMITS = {
  /** At most one confirmation or manage email per mailbox per window… */
  addressWindowMs: 10 * 60_000,
  /** …and this many per UTC day. */
  addressPerDay: 5,
  clientWindowMs: 3_600_000,
  clientPerWindow: 20,
  /** The window of SIGNUP_CONFIRMATIONS_PER_HOUR. */
  globalWindowMs: 3_600_000,
} as const;

/**
 * Emails the public signup form may cause per hour, all addresses together (confirmations and
 * manage links): 1,000 carries a launch, and each takes one place on its hour's counter, which one
 * document takes at about one sustained write a second, so never above 3,600.
 */
export const SIGNUP_CONFIRMATIONS_PER_HOUR = 1_000;

export const rateLimitsCollection = (db: Firestore) => db.collection(COLLECTIONS.rateLimits);

/**
 * `sendAt`: null to send now; otherwise the hour's allowance was used up and the email has its
 * place in a later hour, to be sent at that time and not before.
 */
export type AddressClaim = { allowed: true; sendAt: Date | null } | { allowed: false; reason: 'too-soon' | 'daily-cap' };

/**
 * May this request email this mailbox now? The check is the write: `create()` of the window's
 * document succeeds for exactly one request per mailbox per 10 minutes, however many arrive at
 * once and under whichever spelling. The winner then counts the email against the mailbox's day,
 * then against the global cap: this hour's allowance, or the first later hour with room. The
 * windows are fixed (two emails can straddle a boundary minutes apart); the daily cap bounds what
 * that allows.
 */
export async function claimAddressEmail(
  db: Firestore,
  input: { mailbox: string; secret: string; globalPerHour: number; now: Date },
): Promise<AddressClaim> {
  const key = mailboxKey(input.mailbox, input.secret);
  const window = Math.floor(input.now.getTime() / SIGNUP_LIMITS.addressWindowMs);
  try {
    await rateLimitsCollection(db)
      .doc(`mailbox_${key}_w${window}`)
      .create({
        kind: 'mailbox-window',
        createdAt: input.now,
        expireAt: new Date((window + 1) * SIGNUP_LIMITS.addressWindowMs + DAY_MS),
      });
  } catch (error) {
    if (isAlreadyExists(error)) return { allowed: false, reason: 'too-soon' };
    throw error;
  }
  const day = utcDay(input.now);
  const count = await countAndRead(rateLimitsCollection(db).doc(`mailbox_${key}_d${day}`), {
    kind: 'mailbox-day',
    expireAt: new Date(Date.parse(`${day}T00:00:00Z`) + 2 * DAY_MS),
  });
  if (count > SIGNUP_LIMITS.addressPerDay) return { allowed: false, reason: 'daily-cap' };
  const sendAt = await placeSignupEmail(db, { perHour: input.globalPerHour, now: input.now });
  return { allowed: true, sendAt: sendAt.getTime() > input.now.getTime() ? sendAt : null };
}

const hourOf = (at: Date) => Math.floor(at.getTime() / SIGNUP_LIMITS.globalWindowMs);
const signupEmailsHourDoc = (db: Firestore, hour: number) => rateLimitsCollection(db).doc(`signup-emails_h${hour}`);
/** The counter of the hour `at` falls in: the emails sent in it, and those delayed into it. */
export const signupEmailsDoc = (db: Firestore, at: Date) => signupEmailsHourDoc(db, hourOf(at));

/** Hours read in one round trip when the email must wait beyond the frontier. */
const HOURS_READ_AT_ONCE = 8;

/**
 * rateLimits/signup-emails-frontier: `{hour}`, the first hour that may still have a free place
 * (the hours before it filled up). Only a hint: one write each time a backlog's end moves on, so
 * that an email placed behind a long backlog reads a few hours, not every full hour between.
 * An old value written late only costs its reader a read per full hour it walks past.
 */
const signupFrontierDoc = (db: Firestore) => rateLimitsCollection(db).doc('signup-emails-frontier');

/**
 * Takes a place for one email in the global cap and says when it may be sent: now when this hour
 * has room, else at its place in the first later hour that has. The cap delays, it never drops:
 * an email nobody may send this hour waits its turn, however long the queue. The cap is the bound
 * that holds across instances and addresses together (one process's send limiter cannot see the
 * others); the mailbox's allowance and the per-client limit are what refuse.
 *
 * An hour has exactly `perHour` places, each a document that `create()` gives to one email
 * (rateLimits/signup-email_h{hour}_p{n}), so a burst can neither overspend an hour nor waste it:
 * racers for one place lose to the winner and try the next. Places are taken in order from the
 * hour's counter (a hint, added to after each place is taken), so the taken ones stay a prefix
 * and a full hour costs one read, never a write.
 *
 * A place in a later hour is a time in it: the n-th of `perHour` goes n/perHour of the way in, so
 * a backlog leaves at the cap's rate, not as a burst at the start of each hour.
 */
async function placeSignupEmail(db: Firestore, input: { perHour: number; now: Date }): Promise<Date> {
  const first = hourOf(input.now);
  const [current, frontier] = await db.getAll(signupEmailsHourDoc(db, first), signupFrontierDoc(db));
  if ((await takePlace(db, { hour: first, from: countOf(current), perHour: input.perHour })) !== null) return input.now;

  const known = countOf(frontier, 'hour');
  for (let from = Math.max(first + 1, known); ; from += HOURS_READ_AT_ONCE) {
    const hours = Array.from({ length: HOURS_READ_AT_ONCE }, (_, i) => from + i);
    const counters = await db.getAll(...hours.map((hour) => signupEmailsHourDoc(db, hour)));
    for (const [i, hour] of hours.entries()) {
      const place = await takePlace(db, { hour, from: countOf(counters[i]), perHour: input.perHour });
      if (place === null) continue;
      if (hour > known)
        await signupFrontierDoc(db).set({
          kind: 'signup-emails-frontier',
          hour,
          expireAt: new Date((hour + 1) * SIGNUP_LIMITS.globalWindowMs + DAY_MS),
        });
      return new Date(hour * SIGNUP_LIMITS.globalWindowMs + Math.floor((place * SIGNUP_LIMITS.globalWindowMs) / input.perHour));
    }
  }
}

const countOf = (snap: DocumentSnapshot, field = 'count') => {
  const value: unknown = snap.get(field);
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
};

/** The first free place of the hour from `from` on, taken, and counted; null when the hour is full. */
async function takePlace(db: Firestore, input: { hour: number; from: number; perHour: number }): Promise<number | null> {
  const expireAt = new Date((input.hour + 1) * SIGNUP_LIMITS.globalWindowMs + DAY_MS);
  for (let place = input.from; place < input.perHour; place++) {
    try {
      await rateLimitsCollection(db).doc(`signup-email_h${input.hour}_p${place}`).create({ kind: 'signup-email-place', expireAt });
    } catch (error) {
      if (isAlreadyExists(error)) continue;
      throw error;
    }
    await signupEmailsHourDoc(db, input.hour).set(
      { kind: 'signup-emails-hour', expireAt, count: FieldValue.increment(1) },
      { merge: true },
    );
    return place;
  }
  return null;
}

/** Mailboxes are stored only as keyed hashes: a leaked rateLimits collection names no one. */
const mailboxKey = (mailbox: string, secret: string) =>
  createHmac('sha256', secret).update(`signup-mailbox:${mailbox}`).digest('base64url').slice(0, 22);

/**
 * Adds one to a counter and reads it back. The increment is applied by the server, so concurrent
 * requests never lose a count and never wait on each other (a transaction per attempt would: the
 * emulator serialises contending transactions, ~1 s each, and production's lock pessimistically).
 * The value read back includes our own increment and perhaps later ones, so under a burst a
 * request can be refused one early, never admitted one late: the limit cannot be exceeded.
 */
export async function countAndRead(ref: DocumentReference, fields: { kind: string; expireAt: Date }): Promise<number> {
  await ref.set({ ...fields, count: FieldValue.increment(1) }, { merge: true });
  const count: unknown = (await ref.get()).get('count');
  return typeof count === 'number' ? count : Number.POSITIVE_INFINITY;
}
