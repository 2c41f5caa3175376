import type { Firestore } from 'firebase-admin/firestore';
import { guardedSubscriberUpdate } from '../subscribers/subscriber-writes';
import { verifyLinkToken, type TokenCheck } from '../subscribers/link-token';
import { skipQueuedDeliveries } from './skip-queued-deliveries';
import { leavePendingFields, subscribersCollection } from '../subscribers/subscriber';

export type UnsubscribeFailure = Extract<TokenCheck, { ok: false }>['reason'] | 'unknown-subscriber';

export type UnsubscribeResult =
  { ok: true; uid: string; alreadyUnsubscribed: boolean; skippedDeliveries: number } | { ok: false; reason: UnsubscribeFailure };

/** The delivery reason the dispatcher and the digest flush also use for this subscriber state. */
export const UNSUBSCRIBED_REASON = 'subscriber_unsubscribed';

/**
 * Opts a subscriber out from a signed unsubscribe link. Idempotent: a second call changes nothing
 * on the subscriber (the first `unsubscribedAt` stays) but sweeps queued deliveries again, so a
 * call that died between the two steps is completed by the retry.
 */
export async function unsubscribeSubscriber(
  db: Firestore,
  input: { token: string | null | undefined; secret: string; now: Date },
): Promise<UnsubscribeResult> {
  const check = verifyLinkToken(input.token, { secret: input.secret, purpose: 'unsubscribe', now: input.now });
  if (!check.ok) return { ok: false, reason: check.reason };
  const { uid } = check.claims;
  const marked = await markUnsubscribed(db, uid, input.now);
  if (marked === 'unknown') return { ok: false, reason: 'unknown-subscriber' };
  const skippedDeliveries = await skipQueuedDeliveries(db, { uid, reason: UNSUBSCRIBED_REASON });
  return { ok: true, uid, alreadyUnsubscribed: marked === 'already', skippedDeliveries };
}

/**
 * The status change is an update guarded by the version read (a concurrent edit, e.g. an import
 * or a preferences change, makes us re-read instead of overwriting it), never a create: a link
 * for a subscriber who is gone must not bring a document back. A pending subscriber's signup
 * nonce goes too (its confirmation link is dead), and so does its `expireAt`: the document is
 * now the record of an opt-out, kept so an import never revives the address.
 */
async function markUnsubscribed(db: Firestore, uid: string, now: Date): Promise<'done' | 'already' | 'unknown'> {
  const ref = subscribersCollection(db).doc(uid);
  return guardedSubscriberUpdate<'done' | 'already' | 'unknown'>(
    ref,
    (snap) => {
      if (!snap.exists || !snap.updateTime) return { done: 'unknown' };
      if (snap.get('status') === 'unsubscribed') return { done: 'already' };
      // The private feed's URL dies with the subscription: someone who comes back gets a new one, never the old.
      const stored: unknown = snap.get('feedTokenVersion');
      const feedTokenVersion = (typeof stored === 'number' ? stored : 0) + 1;
      return {
        update: { status: 'unsubscribed', unsubscribedAt: now, updatedAt: now, feedTokenVersion, ...leavePendingFields() },
        result: 'done',
      };
    },
    { action: 'unsubscribing' },
  );
}
