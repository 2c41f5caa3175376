import { randomUUID } from 'node:crypto';
import type { Firestore, WriteBatch } from 'firebase-admin/firestore';
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
import { newOutboxRow, outboxCollection } from '../outbox/outbox-row';
import { sendRowNow, type SendNowDeps, type SendNowResult } from '../outbox/send-now';
import { mailboxOf } from '../subscribers/mailbox';
import { claimAddressEmail, SIGNUP_CONFIRMATIONS_PER_HOUR, type AddressClaim } from '../http/rate-limit';
import { countClientAttempt } from './signup-client-limit';
import type { SignupInput } from '../subscribers/signup-schema';
import { newSignupNonce, normaliseEmail, subscriberConverter, subscriberId, subscribersCollection } from '../subscribers/subscriber';
import { aiEnabled } from '../runtime/config';
import {
  planSignupWrite,
  type AccountEmail,
  type SignupPlan,
  type SignupPreferences,
  type SignupRead,
  type SignupWrite,
  type SignupWriteResult,
} from './plan-signup';

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
    query: input.query,
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
): Promise<SignupWriteResult> {
  const { uid, now } = input;
  // A delayed email's links are issued for the time it goes out, so it reads "works for 7 days"
  // truthfully, and a pending subscriber lives as long as its confirmation link.
  const issuedAt = input.sendAt ?? now;
  let keysTaken = 0;
  let createLost = false;
  return guardedSubscriberUpdate<SignupWriteResult>(
    subscribersCollection(db).doc(uid),
    async (snap): Promise<GuardedStep<SignupWriteResult>> => {
      // Our create lost, yet there is still no subscriber: it was the email key that was taken.
      if (createLost && !snap.exists) keysTaken += 1;
      createLost = false;
      const read: SignupRead = snap.exists
        ? {
            subscriber: snap.data()!,
            confirmSeq: snap.get('confirmSeq'),
            manageSeq: snap.get('manageSeq'),
            unsubscribedAt: snap.get('unsubscribedAt'),
          }
        : null;
      // A nonce per attempt: a lost attempt wrote nothing, so its nonce named no signup.
      const write = planSignupWrite(read, { ...input, nonce: newSignupNonce(), keysTaken, issuedAt });
      if (!write.subscriber) return { done: write.result };
      const row = write.email && (await outboxRowOf(write.email, { ...input, issuedAt }));
      const alongside = (batch: WriteBatch) => {
        if (write.email && row) batch.create(outboxCollection(db).doc(write.email.emailKey), row);
      };
      if ('create' in write.subscriber) {
        const { confirmSeq, manageSeq, ...subscriber } = write.subscriber.create;
        return { create: { ...subscriberConverter.toFirestore(subscriber), confirmSeq, manageSeq }, alongside, result: write.result };
      }
      return { update: write.subscriber.update, ...(row ? { alongside } : {}), result: write.result };
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

/** The planned email, composed for when it goes out, as its outbox row. */
async function outboxRowOf(
  email: NonNullable<SignupWrite['email']>,
  input: { uid: string; settings: MailSettings; runId: string; retentionDays: number; sendAt: Date | null; now: Date; issuedAt: Date },
) {
  const payload: EmailPayload =
    email.kind === 'confirm'
      ? await composeConfirmation({ subscriber: email.recipient, nonce: email.signupNonce!, settings: input.settings, now: input.issuedAt })
      : await composeManageLink({ subscriber: email.recipient, settings: input.settings, now: input.issuedAt });
  return newOutboxRow({
    uid: input.uid,
    kind: email.kind,
    deliveryIds: [],
    payload,
    runId: input.runId,
    now: input.now,
    expireAt: addDays(input.issuedAt, input.retentionDays),
    signupNonce: email.signupNonce,
    notBefore: input.sendAt,
  });
}
