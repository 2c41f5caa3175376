import { randomUUID } from 'node:crypto';
import { clientLogId, UNKNOWN_CLIENT } from '../http/client-address';
import { claimAddressEmail, SIGNUP_CONFIRMATIONS_PER_HOUR } from '../http/rate-limit';
import { countClientAttempt } from './signup-client-limit';
import { composeManageLink } from '../mail/compose-account-email';
import { manageEmailKey, newOutboxRow, outboxCollection } from '../outbox/outbox-row';
import { sendRowNow, type SendNowDeps, type SendNowResult } from '../outbox/send-now';
import { maskEmail } from '../runtime/logger';
import { isAlreadyExists } from '../store/firestore-errors';
import { addDays } from '../store/timestamps';
import { mailboxOf } from '../subscribers/mailbox';
import { subscribersCollection } from '../subscribers/subscriber';
import { guardedSubscriberUpdate } from '../subscribers/subscriber-writes';
import { canEditPreferences } from './preferences';
import type { Config } from '../runtime/config';

/**
 * What came of asking for the preferences link. The page says the same for every outcome but
 * `client-rate-limited` (the asker's own network), as the signup form does: who holds a used
 * confirmation link learns nothing from the answer about the mailbox's allowance.
 */
export type PreferencesLinkOutcome =
  | { kind: 'emailed'; sent: SendNowResult | 'error' | 'held' }
  | { kind: 'held-back'; reason: 'too-soon' | 'daily-cap' | 'not-editable' | 'unknown-subscriber' }
  | { kind: 'client-rate-limited'; retryAfterSec: number };

/**
 * "Email me a link to my preferences", from the page of a used confirmation link. The link on that
 * page is a capability that never expires into a login: the preferences link goes to the
 * subscriber's mailbox, never to the page, through the same limits as a repeated signup (the
 * client's hourly count, the mailbox's allowance, the global hourly cap) and as the same email, the
 * manage-subscription one, under the same key sequence (`manage_{uid}_{n}`). The outbox row is
 * written with the bump of `manageSeq`, guarded by the version read, so two presses at once are two
 * emails only when the mailbox's allowance (which they share) let both through.
 */
export type PreferencesLinkDeps = SendNowDeps & {
  config: Pick<Config, 'LINK_SECRET' | 'APP_URL' | 'MAIL_FROM' | 'RETENTION_DAYS' | 'tuning'>;
};

export async function emailPreferencesLink(
  deps: PreferencesLinkDeps,
  input: { uid: string; clientAddress: string; now: Date },
): Promise<PreferencesLinkOutcome> {
  const { db, config } = deps;
  const { uid, now } = input;
  if (input.clientAddress !== UNKNOWN_CLIENT) {
    const client = await countClientAttempt(db, { clientAddress: input.clientAddress, secret: config.LINK_SECRET, now });
    if (!client.allowed) {
      deps.log('preferences_link.client_rate_limited', { client: clientLogId(input.clientAddress, config.LINK_SECRET) });
      return { kind: 'client-rate-limited', retryAfterSec: client.retryAfterSec };
    }
  }
  // Read for the mailbox only (an address never changes under its id); the write below decides on its own read.
  const stored = (await subscribersCollection(db).doc(uid).get()).data();
  if (!stored) return { kind: 'held-back', reason: 'unknown-subscriber' };
  if (!canEditPreferences(stored.status)) return { kind: 'held-back', reason: 'not-editable' };
  const limit = await claimAddressEmail(db, {
    mailbox: mailboxOf(stored.email),
    secret: config.LINK_SECRET,
    globalPerHour: config.tuning?.SIGNUP_CONFIRMATIONS_PER_HOUR ?? SIGNUP_CONFIRMATIONS_PER_HOUR,
    now,
  });
  if (!limit.allowed) return { kind: 'held-back', reason: limit.reason };
  const issuedAt = limit.sendAt ?? now;
  const runId = `preferences-link-${randomUUID()}`;
  const settings = { appUrl: config.APP_URL, from: config.MAIL_FROM, linkSecret: config.LINK_SECRET };

  let keysTaken = 0;
  const written = await guardedSubscriberUpdate<{ emailKey: string } | { refused: 'not-editable' | 'unknown-subscriber' }>(
    subscribersCollection(db).doc(uid),
    async (snap) => {
      const subscriber = snap.data();
      if (!snap.exists || !subscriber) return { done: { refused: 'unknown-subscriber' } };
      if (!canEditPreferences(subscriber.status)) return { done: { refused: 'not-editable' } };
      const seq = seqOf(snap.get('manageSeq')) + keysTaken + 1;
      const emailKey = manageEmailKey(uid, seq);
      const payload = await composeManageLink({ subscriber, settings, now: issuedAt });
      return {
        update: { manageSeq: seq },
        alongside: (batch) =>
          batch.create(
            outboxCollection(db).doc(emailKey),
            newOutboxRow({
              uid,
              kind: 'manage',
              deliveryIds: [],
              payload,
              runId,
              now,
              expireAt: addDays(issuedAt, config.RETENTION_DAYS),
              notBefore: limit.sendAt,
            }),
          ),
        result: { emailKey },
      };
    },
    {
      action: 'emailing their preferences link',
      // A key already taken (the subscriber was deleted and added again): the next number.
      onLost: (error) => {
        if (isAlreadyExists(error)) keysTaken += 1;
      },
    },
  );
  if ('refused' in written) return { kind: 'held-back', reason: written.refused };

  let sent: SendNowResult | 'error' | 'held' = 'held';
  if (!limit.sendAt) {
    try {
      sent = await sendRowNow(deps, { emailKey: written.emailKey, uid, runId });
    } catch (error) {
      // The row is in the outbox: the next cron run sends it under the same key.
      sent = 'error';
      deps.log('preferences_link.send_error', { error: error instanceof Error ? error.message : String(error) });
    }
  }
  deps.log('preferences_link.emailed', { to: maskEmail(stored.email), sent });
  return { kind: 'emailed', sent };
}

const seqOf = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0);
