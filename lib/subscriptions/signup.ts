import { randomUUID } from 'node:crypto';
import type { Firestore } from 'firebase-admin/firestore';
import type { Config } from '../runtime/config';
import { clientLogId, UNKNOWN_CLIENT } from '../http/client-address';
import { maskEmail } from '../runtime/logger';
import { isAlreadyExists } from '../store/firestore-errors';
import { type GuardedStep } from '../store/guarded-update';
import { guardedSubscriberUpdate } from '../subscribers/subscriber-writes';
import { addDays } from '../store/timestamps';
import { composeConfirmation, composeManageLink } from '../mail/compose-account-email';
import type { MailSettings } from '../mail/compose-email';
import type { EmailPayload } from '../mail/email-payload';
import { confirmEmailKey, manageEmailKey, newOutboxRow, outboxCollection } from '../outbox/outbox-row';
import { sendRowNow, type SendNowDeps, type SendNowResult } from '../outbox/send-now';
import { mailboxOf } from '../subscribers/mailbox';
import { claimAddressEmail, countClientAttempt, SIGNUP_CONFIRMATIONS_PER_HOUR, type AddressClaim } from '../http/rate-limit';
import type { SignupInput } from '../subscribers/signup-schema';
import {
  FIRST_PROFILE_VERSION,
  newSignupNonce,
  normaliseEmail,
  PENDING_SIGNUP_DAYS,
  sameSchedule,
  pendingFields,
  subscriberConverter,
  subscriberId,
  subscribersCollection,
  type Subscriber,
  verdictProfileChanged,
} from '../subscribers/subscriber';
import { DEFAULT_FIT_THRESHOLD } from '../subscribers/fit-profile';
import { aiEnabled } from '../runtime/config';

type AccountEmail = 'confirm' | 'manage';
type Preferences = Pick<
  Subscriber,
  'keywords' | 'excludes' | 'minPay' | 'mode' | 'about' | 'timezone' | 'digestHour' | 'weekdays' | 'weeklyDay'
>;
/** What a signup asks for: `about` is left out while the AI stage is off (nothing reads it then), so a stored one is kept. */
type SignupPreferences = Omit<Preferences, 'about'> & { about?: string };
/**
 * The subscriber as signup reads it: the stored document plus the counters that name its account
 * emails, and whether it records an opt-out (it unsubscribed once).
 */
type Existing = Subscriber & { confirmSeq: number; manageSeq: number; holdsOptOut: boolean };

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

export type SignupOutcome =
  | {
      kind: 'accepted';
      uid: string;
      subscriber: 'created' | SignupPlan['subscriber'];
      /**
       * The email this signup wrote to the outbox and how sending it now went (`held`: the hour's
       * global cap was reached, so it waits in the outbox for its place in a later hour); null when
       * a limit held it back.
       */
      email: { kind: AccountEmail; emailKey: string; sent: SendNowResult | 'error' | 'held' } | null;
      addressLimit: AddressClaim;
    }
  | { kind: 'client-rate-limited'; retryAfterSec: number };

/** Signup writes the subscriber and the outbox row, then sends the email now, as any request-time send. */
export type SignupDeps = SendNowDeps & { config: Config };

/**
 * POST /api/signup after validation. Idempotent per email: the subscriber's id is the normalised
 * address, so every spelling lands on one document, created with `create()` (the database decides
 * who creates it). Each email is written to the outbox in the same batch as the subscriber change
 * that calls for it, keyed by a counter on the subscriber (`confirm_{uid}_{n}`, `manage_{uid}_{n}`),
 * then sent right away through the outbox's own lease and opt-out check; if this request dies, the
 * cron's dispatcher finds the row and finishes it.
 */
export async function signUp(
  deps: SignupDeps,
  input: SignupInput,
  /** `resend`: "Send it again" on the page after a signup; the same signup, under the same limits, told apart only in the log. */
  context: { clientAddress: string; now: Date; resend?: boolean },
): Promise<SignupOutcome> {
  const { db, config } = deps;
  const { now } = context;
  // Without a trusted client address every visitor is the one UNKNOWN_CLIENT, so a per-client
  // limit would let one caller refuse everyone: the mailbox's allowance and the global hourly cap
  // on emails (which holds emails back, never the signup) are then the bounds.
  const client =
    context.clientAddress === UNKNOWN_CLIENT
      ? ({ allowed: true } as const)
      : await countClientAttempt(db, { clientAddress: context.clientAddress, secret: config.LINK_SECRET, now });
  if (!client.allowed) {
    deps.log('signup.client_rate_limited', {
      client: clientLogId(context.clientAddress, config.LINK_SECRET),
      retryAfterSec: client.retryAfterSec,
    });
    return { kind: 'client-rate-limited', retryAfterSec: client.retryAfterSec };
  }

  const email = normaliseEmail(input.email);
  const uid = subscriberId(email);
  const preferences: SignupPreferences = {
    keywords: input.keywords,
    excludes: input.excludes,
    minPay: input.minPay,
    mode: input.mode,
    // Only the AI stage reads it: while it is off the field is not on the form, and a client that sends it anyway changes nothing.
    ...(aiEnabled(config) ? { about: input.about } : {}),
    timezone: input.timezone,
    digestHour: input.digestHour,
    weekdays: input.weekdays,
    weeklyDay: input.weeklyDay,
  };
  const addressLimit = await claimAddressEmail(db, {
    mailbox: mailboxOf(email),
    secret: config.LINK_SECRET,
    globalPerHour: config.tuning?.SIGNUP_CONFIRMATIONS_PER_HOUR ?? SIGNUP_CONFIRMATIONS_PER_HOUR,
    now,
  });
  const settings: MailSettings = { appUrl: config.APP_URL, from: config.MAIL_FROM, linkSecret: config.LINK_SECRET };
  const runId = `signup-${randomUUID()}`;
  const write = await writeSignup(db, {
    uid,
    email,
    preferences,
    mayEmail: addressLimit.allowed,
    sendAt: addressLimit.allowed ? addressLimit.sendAt : null,
    settings,
    runId,
    retentionDays: config.RETENTION_DAYS,
    now,
  });

  let sent: SendNowResult | 'error' | 'held' | null = null;
  if (write.email && addressLimit.allowed && addressLimit.sendAt) sent = 'held';
  else if (write.email) {
    try {
      sent = await sendRowNow(deps, { emailKey: write.email.emailKey, uid, runId });
    } catch (error) {
      // The row is in the outbox: the next cron run sends it under the same key.
      sent = 'error';
      deps.log('signup.send_error', { kind: write.email.kind, error: error instanceof Error ? error.message : String(error) });
    }
  }
  deps.log('signup.accepted', {
    to: maskEmail(email),
    resend: context.resend === true,
    subscriber: write.subscriber,
    email: write.email?.kind ?? null,
    sent,
    addressLimit: addressLimit.allowed ? null : addressLimit.reason,
    notBefore: addressLimit.allowed ? (addressLimit.sendAt?.toISOString() ?? null) : null,
  });
  return {
    kind: 'accepted',
    uid,
    subscriber: write.subscriber,
    email: write.email && sent ? { ...write.email, sent } : null,
    addressLimit,
  };
}

type WriteResult = { subscriber: 'created' | SignupPlan['subscriber']; email: { kind: AccountEmail; emailKey: string } | null };

async function writeSignup(
  db: Firestore,
  input: {
    uid: string;
    email: string;
    preferences: SignupPreferences;
    mayEmail: boolean;
    /** Past the hour's global cap: the email waits in the outbox until then. */
    sendAt: Date | null;
    settings: MailSettings;
    runId: string;
    retentionDays: number;
    now: Date;
  },
): Promise<WriteResult> {
  const { uid, now } = input;
  // A delayed email's links are issued for the time it goes out, so it reads "works for 7 days"
  // truthfully, and a pending subscriber lives as long as its confirmation link.
  const issuedAt = input.sendAt ?? now;
  const outboxRow = (kind: AccountEmail, payload: EmailPayload, signupNonce?: string) =>
    newOutboxRow({
      uid,
      kind,
      deliveryIds: [],
      payload,
      runId: input.runId,
      now,
      expireAt: addDays(issuedAt, input.retentionDays),
      signupNonce,
      notBefore: input.sendAt,
    });

  // An email key already taken although the subscriber's counter says otherwise (the subscriber was
  // deleted and added again, say) moves us to the next number instead of failing the signup.
  let keysTaken = 0;
  let createLost = false;
  return guardedSubscriberUpdate<WriteResult>(
    subscribersCollection(db).doc(uid),
    async (snap): Promise<GuardedStep<WriteResult>> => {
      // A nonce per attempt: a lost attempt wrote nothing, so its nonce named no signup.
      const nonce = newSignupNonce();
      // Our create lost, yet there is still no subscriber: it was the email key that was taken.
      if (createLost && !snap.exists) keysTaken += 1;
      createLost = false;

      if (!snap.exists) {
        const subscriber: Subscriber = {
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
          expireAt: addDays(issuedAt, PENDING_SIGNUP_DAYS),
        };
        const seq = input.mayEmail ? 1 + keysTaken : 0;
        const emailKey = confirmEmailKey(uid, seq);
        const payload = input.mayEmail ? await composeConfirmation({ subscriber, nonce, settings: input.settings, now: issuedAt }) : null;
        return {
          create: { ...subscriberConverter.toFirestore(subscriber), confirmSeq: seq, manageSeq: 0 },
          alongside: (batch) => {
            if (payload) batch.create(outboxCollection(db).doc(emailKey), outboxRow('confirm', payload, nonce));
          },
          result: { subscriber: 'created', email: input.mayEmail ? { kind: 'confirm', emailKey } : null },
        };
      }

      const existing: Existing = {
        ...snap.data()!,
        confirmSeq: seqOf(snap.get('confirmSeq')) + keysTaken,
        manageSeq: seqOf(snap.get('manageSeq')) + keysTaken,
        holdsOptOut: snap.get('unsubscribedAt') != null,
      };
      const plan = planSignup(existing, input.preferences, { mayEmail: input.mayEmail, now, issuedAt, nonce });
      if (!plan.changes) return { done: { subscriber: plan.subscriber, email: null } };
      if (!plan.email) return { update: plan.changes, result: { subscriber: plan.subscriber, email: null } };
      const recipient = { id: uid, email: existing.email, status: existing.status, linkVersion: existing.linkVersion };
      const kind = plan.email.kind;
      const payload =
        kind === 'confirm'
          ? await composeConfirmation({ subscriber: recipient, nonce, settings: input.settings, now: issuedAt })
          : await composeManageLink({ subscriber: recipient, settings: input.settings, now: issuedAt });
      const emailKey = (kind === 'confirm' ? confirmEmailKey : manageEmailKey)(uid, plan.email.seq);
      return {
        update: plan.changes,
        alongside: (batch) => {
          batch.create(outboxCollection(db).doc(emailKey), outboxRow(kind, payload, kind === 'confirm' ? nonce : undefined));
        },
        result: { subscriber: plan.subscriber, email: { kind, emailKey } },
      };
    },
    {
      action: 'signing up',
      // Someone else created the subscriber a moment ago (decide again on their version), or an email key
      // was taken; or the subscriber changed since we read it (another signup, a confirmation, an
      // unsubscribe). Nothing of ours was written either way: read again and decide on the new version.
      onLost: (error, step) => {
        if ('create' in step) createLost = true;
        else if (isAlreadyExists(error)) keysTaken += 1;
      },
    },
  );
}

const seqOf = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0);
