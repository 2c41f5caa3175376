import type { Firestore } from 'firebase-admin/firestore';
import { guardedSubscriberUpdate } from '../subscribers/subscriber-writes';
import { verifyLinkToken, type TokenCheck } from '../subscribers/link-token';
import { leavePendingFields, subscribersCollection, type Subscriber } from '../subscribers/subscriber';
import { planWelcome, type WelcomeSettings } from './welcome';

/**
 * Why a confirmation link did nothing, beyond the token's own faults:
 * - `outdated`: signed before links named their signup (no nonce), so it could confirm anything.
 * - `superseded`: the address was signed up again since (by its owner or by someone else).
 * - `used`: the subscriber is confirmed; a link works once.
 */
export type ConfirmFailure =
  Extract<TokenCheck, { ok: false }>['reason'] | 'outdated' | 'unknown-subscriber' | 'unsubscribed' | 'superseded' | 'used';

/** A refusal names the subscriber (`uid`) only when the link was theirs and used: the page offers to email them their preferences link. */
export type ConfirmResult = { ok: true; subscriber: Subscriber } | { ok: false; reason: ConfirmFailure; uid?: string };

/** The confirmation that activated: the welcome it wrote to the outbox (null when nothing of the week fit), to send now. */
export type Confirmed = { ok: true; subscriber: Subscriber; welcome: { emailKey: string; postings: number } | null };

export type ConfirmDecision = { kind: 'activate'; subscriber: Subscriber } | { kind: 'refuse'; reason: ConfirmFailure };

/**
 * Whether a link carrying `nonce` may confirm this subscriber: only a pending one whose stored
 * nonce is the link's, i.e. the signup whose email carried the link, and nothing since.
 */
export function decideConfirmation(subscriber: Subscriber | undefined, nonce: string | undefined): ConfirmDecision {
  if (!nonce) return { kind: 'refuse', reason: 'outdated' };
  if (!subscriber) return { kind: 'refuse', reason: 'unknown-subscriber' };
  switch (subscriber.status) {
    case 'unsubscribed':
      return { kind: 'refuse', reason: 'unsubscribed' };
    case 'pending':
      return subscriber.signupNonce === nonce ? { kind: 'activate', subscriber } : { kind: 'refuse', reason: 'superseded' };
    default:
      return { kind: 'refuse', reason: 'used' };
  }
}

/** A confirm link's signed claims: whose signup, and which one (links from before the nonce are `outdated`). */
function readConfirmLink(input: {
  token: string | null | undefined;
  secret: string;
  now: Date;
}): { ok: true; uid: string; nonce: string } | { ok: false; reason: ConfirmFailure } {
  const check = verifyLinkToken(input.token, { secret: input.secret, purpose: 'confirm', now: input.now });
  if (!check.ok) return { ok: false, reason: check.reason };
  if (!check.claims.nonce) return { ok: false, reason: 'outdated' };
  return { ok: true, uid: check.claims.uid, nonce: check.claims.nonce };
}

/** What GET /confirm shows: the button only for a link that would confirm. Reads, never writes. */
export async function checkConfirmLink(
  db: Firestore,
  input: { token: string | null | undefined; secret: string; now: Date },
): Promise<ConfirmResult> {
  const link = readConfirmLink(input);
  if (!link.ok) return link;
  const subscriber = (await subscribersCollection(db).doc(link.uid).get()).data();
  const decision = decideConfirmation(subscriber, link.nonce);
  if (decision.kind === 'activate') return { ok: true, subscriber: decision.subscriber };
  return decision.reason === 'used' ? { ok: false, reason: 'used', uid: link.uid } : { ok: false, reason: decision.reason };
}

/**
 * The second half of the double opt-in, from a signed `confirm` link: pending → active, with
 * `confirmedAt`, when the link's nonce is the one stored by the latest signup. The same update
 * removes the nonce (the link works once) and `expireAt` (the TTL policy deletes unconfirmed
 * signups, never a subscriber). It is guarded by the version read, so of N clicks at once exactly
 * one activates; the others, and any confirmation racing an unsubscribe or a new signup, decide
 * again on the fresh state and are refused.
 *
 * The welcome (the week's best matches, welcome.ts) is written in the same batch: its outbox row
 * (`welcome_{uid}_{nonce}`) and one `sending` delivery per posting it carries. So it exists
 * exactly when the activation does: only the click that activates writes it, and a crash after the
 * commit leaves a pending row that the cron's dispatcher sends. A delivery created meanwhile by
 * someone else fails the whole batch, which is decided again on what is there then.
 */
export async function confirmSubscription(
  db: Firestore,
  input: { token: string | null | undefined; secret: string; now: Date; runId: string; welcome: WelcomeSettings },
): Promise<Confirmed | { ok: false; reason: ConfirmFailure }> {
  const link = readConfirmLink(input);
  if (!link.ok) return link;
  const ref = subscribersCollection(db).doc(link.uid);
  // Lost to another write (another click, an unsubscribe, a signup) or to the TTL's delete: decided again.
  return guardedSubscriberUpdate<Confirmed | { ok: false; reason: ConfirmFailure }>(
    ref,
    async (snap) => {
      const decision = decideConfirmation(snap.data(), link.nonce);
      if (decision.kind === 'refuse') return { done: { ok: false, reason: decision.reason } };
      const { signupNonce: _nonce, expireAt: _expireAt, ...rest } = decision.subscriber;
      const subscriber: Subscriber = { ...rest, status: 'active', confirmedAt: input.now, updatedAt: input.now };
      const welcome = await planWelcome(db, { subscriber, nonce: link.nonce, now: input.now, runId: input.runId, settings: input.welcome });
      return {
        update: { status: 'active', confirmedAt: input.now, updatedAt: input.now, ...leavePendingFields() },
        alongside: welcome?.write,
        result: {
          ok: true,
          subscriber,
          welcome: welcome ? { emailKey: welcome.emailKey, postings: welcome.deliveries.length } : null,
        },
      };
    },
    { action: 'confirming' },
  );
}
