import type { Firestore } from 'firebase-admin/firestore';
import { isLostPrecondition } from '../ledger/firestore-errors';
import { verifyLinkToken, type TokenCheck } from './link-token';
import { subscribersCollection, type Subscriber } from './subscriber';

export type ConfirmFailure = Extract<TokenCheck, { ok: false }>['reason'] | 'unknown-subscriber' | 'unsubscribed';

export type ConfirmResult = { ok: true; subscriber: Subscriber; alreadyConfirmed: boolean } | { ok: false; reason: ConfirmFailure };

/** Re-reads after a lost guard before giving up; only a subscriber edited this often in a row gets there. */
const MAX_ATTEMPTS = 5;

/**
 * The second half of the double opt-in, from a signed `confirm` link: pending → active, with
 * `confirmedAt`. The update is guarded by the version read, so a confirmation racing an
 * unsubscribe (or a second click) decides again on the fresh state. Nothing else moves: an
 * active or paused subscriber is already confirmed, and an unsubscribed one can come back only
 * through a new signup (and a new confirmation).
 */
export async function confirmSubscription(
  db: Firestore,
  input: { token: string | null | undefined; secret: string; now: Date },
): Promise<ConfirmResult> {
  const check = verifyLinkToken(input.token, { secret: input.secret, purpose: 'confirm', now: input.now });
  if (!check.ok) return { ok: false, reason: check.reason };
  const ref = subscribersCollection(db).doc(check.claims.uid);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const snap = await ref.get();
    const subscriber = snap.data();
    if (!subscriber || !snap.updateTime) return { ok: false, reason: 'unknown-subscriber' };
    if (subscriber.status === 'unsubscribed') return { ok: false, reason: 'unsubscribed' };
    if (subscriber.status !== 'pending') return { ok: true, subscriber, alreadyConfirmed: true };
    try {
      await ref.update({ status: 'active', confirmedAt: input.now, updatedAt: input.now }, { lastUpdateTime: snap.updateTime });
      return {
        ok: true,
        subscriber: { ...subscriber, status: 'active', confirmedAt: input.now, updatedAt: input.now },
        alreadyConfirmed: false,
      };
    } catch (error) {
      if (!isLostPrecondition(error)) throw error;
    }
  }
  throw new Error(`users/${check.claims.uid} kept changing while confirming; try again`);
}
