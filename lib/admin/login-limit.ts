import type { Firestore } from 'firebase-admin/firestore';
import { DAY_MS } from '../store/timestamps';
import { LOGIN_LOCK } from '../ops/auth-failures';
import { countAndRead, rateLimitsCollection } from '../http/rate-limit';
import { deriveKey, hmac } from './session';

/**
 * Two limits on the ops page's login, both in Firestore (instances share no memory), every
 * document with `expireAt` for the TTL policy:
 *
 * - per client: `perWindow` attempts a minute per trusted client address (lib/http/client-address.ts),
 *   under rateLimits/admin-login_{hmac(address)}_m{minute}. The secret is at least 16 characters,
 *   so this is not what keeps it from being guessed; it keeps a script from hammering the form.
 * - for everyone: `failuresPerWindow` wrong secrets in `failureWindowMs` lock the login for
 *   `lockMs` (LOGIN_LOCK, lib/ops/auth-failures.ts, where failed authentications are counted).
 */
export const LOGIN_LIMIT = { windowMs: 60_000, perWindow: 5, ...LOGIN_LOCK } as const;

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
  return { allowed: false, retryAfterSec: retryAfter(windowEnd, input.now) };
}

const retryAfter = (endMs: number, now: Date) => Math.max(1, Math.ceil((endMs - now.getTime()) / 1000));
