import { createHmac } from 'node:crypto';
import { FieldValue, type DocumentReference, type Firestore } from 'firebase-admin/firestore';
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
 *   rateLimits/signup-emails_h{hour}                        emails the signup form caused that hour, all mailboxes together
 *   rateLimits/client_{hmac(address)}_h{hour}               signup attempts from one client address that hour
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

export const rateLimitsCollection = (db: Firestore) => db.collection(COLLECTIONS.rateLimits);

export type AddressClaim = { allowed: true } | { allowed: false; reason: 'too-soon' | 'daily-cap' | 'global-cap' };

/**
 * May this request email this mailbox now? The check is the write: `create()` of the window's
 * document succeeds for exactly one request per mailbox per 10 minutes, however many arrive at
 * once and under whichever spelling. The winner then counts the email against the mailbox's day,
 * then against the hour's global cap. The windows are fixed (two emails can straddle a boundary
 * minutes apart); the daily cap bounds what that allows.
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
  return (await countSignupEmail(db, { perHour: input.globalPerHour, now: input.now }))
    ? { allowed: true }
    : { allowed: false, reason: 'global-cap' };
}

export const signupEmailsDoc = (db: Firestore, now: Date) =>
  rateLimitsCollection(db).doc(`signup-emails_h${Math.floor(now.getTime() / SIGNUP_LIMITS.globalWindowMs)}`);

/**
 * Counts one email against the hour's global cap; false when the hour is full. The cap is the
 * bound that holds across instances and addresses together (one process's send limiter cannot
 * see the others). One document per hour: at signup rates its writes stay far below Firestore's
 * ~1 sustained write a second per document, and once the hour is full a read refuses without
 * writing (counts only grow inside a window, so a full read is never stale in the wrong direction).
 */
async function countSignupEmail(db: Firestore, input: { perHour: number; now: Date }): Promise<boolean> {
  const ref = signupEmailsDoc(db, input.now);
  const current: unknown = (await ref.get()).get('count');
  if (typeof current === 'number' && current >= input.perHour) return false;
  const window = Math.floor(input.now.getTime() / SIGNUP_LIMITS.globalWindowMs);
  const count = await countAndRead(ref, {
    kind: 'signup-emails-hour',
    expireAt: new Date((window + 1) * SIGNUP_LIMITS.globalWindowMs + DAY_MS),
  });
  return count <= input.perHour;
}

/** Mailboxes are stored only as keyed hashes: a leaked rateLimits collection names no one. */
const mailboxKey = (mailbox: string, secret: string) =>
  createHmac('sha256', secret).update(`signup-mailbox:${mailbox}`).digest('base64url').slice(0, 22);

export type ClientCount = { allowed: true } | { allowed: false; retryAfterSec: number };

/**
 * Counts one signup attempt from a client address against its hour. The address is stored only
 * as a keyed hash (HMAC with the server's secret), so a leaked rateLimits collection cannot be
 * turned back into IP addresses by hashing the 2^32 of them.
 */
export async function countClientAttempt(db: Firestore, input: { clientAddress: string; secret: string; now: Date }): Promise<ClientCount> {
  const window = Math.floor(input.now.getTime() / SIGNUP_LIMITS.clientWindowMs);
  const windowEnd = (window + 1) * SIGNUP_LIMITS.clientWindowMs;
  const count = await countAndRead(rateLimitsCollection(db).doc(`client_${clientKey(input.clientAddress, input.secret)}_h${window}`), {
    kind: 'client-hour',
    expireAt: new Date(windowEnd + DAY_MS),
  });
  if (count <= SIGNUP_LIMITS.clientPerWindow) return { allowed: true };
  return { allowed: false, retryAfterSec: Math.max(1, Math.ceil((windowEnd - input.now.getTime()) / 1000)) };
}

export const clientKey = (clientAddress: string, secret: string) =>
  createHmac('sha256', secret).update(`signup-client:${clientAddress.trim().toLowerCase()}`).digest('base64url').slice(0, 22);

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
