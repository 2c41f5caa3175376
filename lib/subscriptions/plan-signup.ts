import { confirmEmailKey, manageEmailKey } from '../outbox/outbox-row';
import { addDays } from '../store/timestamps';
import {
  FIRST_PROFILE_VERSION,
  PENDING_SIGNUP_DAYS,
  pendingFields,
  sameSchedule,
  type Subscriber,
  verdictProfileChanged,
} from '../subscribers/subscriber';
import { DEFAULT_FIT_THRESHOLD } from '../subscribers/fit-profile';

/**
 * The decisions of a signup, apart from the store: from what was read of the subscriber to what to
 * write (signup.ts does the reading, composes the email and writes, guarded by the version read).
 */

export type AccountEmail = 'confirm' | 'manage';
type Preferences = Pick<
  Subscriber,
  'keywords' | 'excludes' | 'query' | 'minPay' | 'mode' | 'about' | 'timezone' | 'digestHour' | 'weekdays' | 'weeklyDay'
>;
/** What a signup asks for: `about` is left out while the AI stage is off (nothing reads it then), so a stored one is kept. */
export type SignupPreferences = Omit<Preferences, 'about'> & { about?: string };
/**
 * The subscriber as signup reads it: the stored document plus the counters that name its account
 * emails, and whether it records an opt-out (it unsubscribed once).
 */
export type Existing = Subscriber & { confirmSeq: number; manageSeq: number; holdsOptOut: boolean };

export type SignupPlan = {
  /** Fields to write on the existing subscriber (nothing when null). */
  changes: Record<string, unknown> | null;
  email: { kind: AccountEmail; seq: number } | null;
  subscriber: 'updated' | 'resubscribed' | 'kept';
};

/**
 * What a signup does to an existing subscriber, decided on the version read (the write that
 * follows is guarded by it). `mayEmail` is the address's rate limit: without it the state still
 * changes where that is harmless, and no email is planned. `nonce` is this signup's: every signup
 * that leaves the subscriber pending with something new stores it, so a confirmation link from an
 * earlier signup (with other preferences, maybe someone else's) confirms nothing.
 * - pending: never confirmed, so the form's preferences (about included) replace the old ones; a new confirmation.
 * Either way in, a change to what a verdict depends on bumps `profileVersion`.
 * - unsubscribed: back to pending with the new preferences; re-subscribing needs the opt-in again.
 * - active or paused: an anonymous form must not change their preferences; a manage link instead.
 */
export function planSignup(
  existing: Existing,
  asked: SignupPreferences,
  input: { mayEmail: boolean; now: Date; nonce: string; issuedAt?: Date },
): SignupPlan {
  const { mayEmail, now } = input;
  const preferences: Preferences = { ...asked, about: asked.about ?? existing.about };
  // The pending subscriber outlives its confirmation link, which a delayed email issues later.
  const pending = () =>
    pendingFields({
      nonce: input.nonce,
      now: input.issuedAt ?? now,
      holdsOptOut: existing.holdsOptOut || existing.status === 'unsubscribed',
    });
  const profile = () => (verdictProfileChanged(existing, preferences) ? { profileVersion: existing.profileVersion + 1 } : {});
  switch (existing.status) {
    case 'pending': {
      const changed = !samePreferences(existing, preferences);
      const email = mayEmail ? { kind: 'confirm' as const, seq: existing.confirmSeq + 1 } : null;
      if (!changed && !email) return { changes: null, email: null, subscriber: 'kept' };
      return {
        changes: {
          ...(changed ? { ...preferences, ...profile(), updatedAt: now } : {}),
          ...(email ? { confirmSeq: email.seq } : {}),
          ...pending(),
        },
        email,
        subscriber: changed ? 'updated' : 'kept',
      };
    }
    case 'unsubscribed': {
      const email = mayEmail ? { kind: 'confirm' as const, seq: existing.confirmSeq + 1 } : null;
      return {
        changes: {
          ...preferences,
          ...profile(),
          status: 'pending',
          confirmedAt: null,
          updatedAt: now,
          // Whatever was sent to the old subscription opens nothing of the new one (the unsubscribe bumped it too; a restored or imported opt-out may not have).
          linkVersion: (existing.linkVersion ?? 0) + 1,
          ...(email ? { confirmSeq: email.seq } : {}),
          ...pending(),
        },
        email,
        subscriber: 'resubscribed',
      };
    }
    case 'active':
    case 'paused': {
      const email = mayEmail ? { kind: 'manage' as const, seq: existing.manageSeq + 1 } : null;
      return { changes: email ? { manageSeq: email.seq } : null, email, subscriber: 'kept' };
    }
    default:
      return { changes: null, email: null, subscriber: 'kept' };
  }
}

const samePreferences = (a: Preferences, b: Preferences) => a.mode === b.mode && sameSchedule(a, b) && !verdictProfileChanged(a, b);

/** Who an account email goes to, as its composer needs them. */
type Recipient = Pick<Subscriber, 'id' | 'email' | 'status' | 'linkVersion'>;

/** What the signup did, as signUp reports it. */
export type SignupWriteResult = {
  subscriber: 'created' | SignupPlan['subscriber'];
  email: { kind: AccountEmail; emailKey: string } | null;
};

/** The subscriber as read: its document and its counters, as stored (anything, or nothing, from an old document). */
export type SignupRead = { subscriber: Subscriber; confirmSeq: unknown; manageSeq: unknown; unsubscribedAt: unknown } | null;

export type SignupWrite = {
  /** The subscriber's document: created with its counters, changed (guarded by the version read), or left alone (null). */
  subscriber: { create: Subscriber & { confirmSeq: number; manageSeq: number } } | { update: Record<string, unknown> } | null;
  /** The outbox row created in the same batch; `signupNonce` only on a confirmation, the signup its link confirms. */
  email: { kind: AccountEmail; emailKey: string; recipient: Recipient; signupNonce?: string } | null;
  result: SignupWriteResult;
};

/**
 * From what was read to what to write. `nonce` is this attempt's; `keysTaken` counts the email
 * keys found taken although the subscriber's counter said otherwise (the subscriber was deleted
 * and added again, say): each moves the email to the next number instead of failing the signup.
 * `issuedAt` is when the email's links are issued: its send time when the global cap delays it.
 */
export function planSignupWrite(
  read: SignupRead,
  input: {
    uid: string;
    email: string;
    preferences: SignupPreferences;
    mayEmail: boolean;
    nonce: string;
    keysTaken: number;
    now: Date;
    issuedAt: Date;
  },
): SignupWrite {
  const { uid, now, nonce, keysTaken } = input;
  if (!read) {
    const seq = input.mayEmail ? 1 + keysTaken : 0;
    const emailKey = confirmEmailKey(uid, seq);
    return {
      subscriber: {
        create: {
          id: uid,
          email: input.email,
          ...input.preferences,
          about: input.preferences.about ?? '',
          profileVersion: FIRST_PROFILE_VERSION,
          fitThreshold: DEFAULT_FIT_THRESHOLD,
          status: 'pending',
          createdAt: now,
          confirmedAt: null,
          updatedAt: now,
          signupNonce: nonce,
          expireAt: addDays(input.issuedAt, PENDING_SIGNUP_DAYS),
          confirmSeq: seq,
          manageSeq: 0,
        },
      },
      email: input.mayEmail
        ? { kind: 'confirm', emailKey, recipient: { id: uid, email: input.email, status: 'pending' }, signupNonce: nonce }
        : null,
      result: { subscriber: 'created', email: input.mayEmail ? { kind: 'confirm', emailKey } : null },
    };
  }

  const existing: Existing = {
    ...read.subscriber,
    confirmSeq: seqOf(read.confirmSeq) + keysTaken,
    manageSeq: seqOf(read.manageSeq) + keysTaken,
    holdsOptOut: read.unsubscribedAt != null,
  };
  const plan = planSignup(existing, input.preferences, { mayEmail: input.mayEmail, now, issuedAt: input.issuedAt, nonce });
  if (!plan.changes) return { subscriber: null, email: null, result: { subscriber: plan.subscriber, email: null } };
  if (!plan.email) return { subscriber: { update: plan.changes }, email: null, result: { subscriber: plan.subscriber, email: null } };
  const { kind, seq } = plan.email;
  const emailKey = (kind === 'confirm' ? confirmEmailKey : manageEmailKey)(uid, seq);
  const recipient = { id: uid, email: existing.email, status: existing.status, linkVersion: existing.linkVersion };
  return {
    subscriber: { update: plan.changes },
    email: { kind, emailKey, recipient, ...(kind === 'confirm' ? { signupNonce: nonce } : {}) },
    result: { subscriber: plan.subscriber, email: { kind, emailKey } },
  };
}

const seqOf = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0);
