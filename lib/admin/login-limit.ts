import type { Firestore } from 'firebase-admin/firestore';
import { DAY_MS } from '../ledger/timestamps';
import { countAndRead, rateLimitsCollection } from '../subscribers/rate-limit';
import { deriveKey, hmac } from './session';

/**
 * Login attempts per client address per minute. The secret is at least 16 characters, so this is
 * not what keeps it from being guessed; it keeps a script from hammering the form (and Firestore).
 * Counted in Firestore like the signup limits (instances share no memory), under
 * rateLimits/admin-login_{hmac(address)}_m{minute}, with `expireAt` for the TTL policy.
 */
export const LOGIN_LIMIT = { windowMs: 60_000, perWindow: 5 } as const;

export type LoginAttempt = { allowed: true } | { allowed: false; retryAfterSec: number };

export async function countLoginAttempt(db: Firestore, input: { clientAddress: string; secret: string; now: Date }): Promise<LoginAttempt> {
  const window = Math.floor(input.now.getTime() / LOGIN_LIMIT.windowMs);
  const windowEnd = (window + 1) * LOGIN_LIMIT.windowMs;
  // The address is stored only as a keyed hash, never as itself.
  const client = hmac(deriveKey(input.secret, 'login'), `client:${input.clientAddress.trim().toLowerCase()}`)
    .toString('base64url')
    .slice(0, 22);
  const count = await countAndRead(rateLimitsCollection(db).doc(`admin-login_${client}_m${window}`), {
    kind: 'admin-login-minute',
    expireAt: new Date(windowEnd + DAY_MS),
  });
  if (count <= LOGIN_LIMIT.perWindow) return { allowed: true };
  return { allowed: false, retryAfterSec: Math.max(1, Math.ceil((windowEnd - input.now.getTime()) / 1000)) };
}
