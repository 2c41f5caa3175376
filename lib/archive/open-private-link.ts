import type { Firestore } from 'firebase-admin/firestore';
import { isCurrentLink, verifyLinkToken } from '../subscribers/link-token';
import { subscribersCollection, type Subscriber, type SubscriberStatus } from '../subscribers/subscriber';

/**
 * Whose archive may be read: a subscriber who gets postings now or paused them. Someone who
 * unsubscribed left (their old links open nothing), and a pending signup was never sent anything.
 */
const READABLE: readonly SubscriberStatus[] = ['active', 'paused'];
export const canReadArchive = (status: SubscriberStatus) => READABLE.includes(status);

/**
 * Why a link opened nothing, for the log only: every one of them gets the same answer, so the
 * answer tells a holder of a stolen or guessed link nothing about whose it was or whether they exist.
 */
export type PrivateLinkRefusal = 'link' | 'revoked' | 'links-revoked' | 'no-subscriber' | 'status';

export type PrivateLink = { ok: true; token: string; subscriber: Subscriber } | { ok: false; refused: PrivateLinkRefusal };

/**
 * Opens an archive or private feed link: the token's signature, purpose and expiry, then the
 * subscriber (one read), who must still be reading, and for a feed link the version it was signed
 * with must be their current `feedTokenVersion`: revoking bumps it, and every older URL is dead.
 * Either kind must also carry their current `linkVersion`: an unsubscribe, a re-signup or "Revoke
 * my links" bumps it, so a link of a subscription that ended opens nothing of the next one.
 */
export async function openPrivateLink(
  db: Firestore,
  input: { token: string | null; purpose: 'archive' | 'feed'; secret: string; now: Date },
): Promise<PrivateLink> {
  const check = verifyLinkToken(input.token, { secret: input.secret, purpose: input.purpose, now: input.now });
  if (!check.ok) return { ok: false, refused: 'link' };
  const subscriber = (await subscribersCollection(db).doc(check.claims.uid).get()).data();
  if (!subscriber) return { ok: false, refused: 'no-subscriber' };
  if (!canReadArchive(subscriber.status)) return { ok: false, refused: 'status' };
  if (!isCurrentLink(check.claims, subscriber)) return { ok: false, refused: 'links-revoked' };
  if (input.purpose === 'feed' && check.claims.version !== (subscriber.feedTokenVersion ?? 0)) return { ok: false, refused: 'revoked' };
  return { ok: true, token: input.token!, subscriber };
}
