import type { Firestore } from 'firebase-admin/firestore';
import { DAY_MS } from '../store/timestamps';
import { LOGIN_LOCK } from '../ops/auth-failures';
import { isAlreadyExists } from '../store/firestore-errors';
import { rateLimitsCollection } from '../http/rate-limit';
import { countClientRequest, type ClientCount, type ClientLimit } from '../http/client-limit';
import { deriveKey } from './session';

/**
 * Two limits on the ops page's login, both in Firestore (instances share no memory), every
 * document with `expireAt` for the TTL policy:
 *
 * - per client: `perWindow` attempts a minute per trusted client address (lib/http/client-address.ts),
 *   under rateLimits/admin-login_{hmac(address)}_m{minute}. The secret is at least 16 characters,
 *   so this is not what keeps it from being guessed; it keeps a script from hammering the form.
 * - for everyone: `failuresPerWindow` wrong secrets in `failureWindowMs` lock the login for
 *   `lockMs` (LOGIN_LOCK, lib/ops/auth-failures.ts, where failed authentications are counted).
 *
 * Without a trusted client address (`TRUSTED_PROXY_HOPS=0` off Vercel) every caller is one
 * client, so both would let one caller shut the door on everyone. Then there is no per-client
 * limit, and the lock slows the login instead of closing it: while it lasts, one attempt per
 * `lockedPaceMs` is compared, for everyone together (rateLimits/admin-login-pace_s{slot}), so an
 * operator who retries gets in within seconds while a guesser gets six tries a minute.
 * A session already open is never asked for the secret (handleAdminLogin).
 */
export const LOGIN_LIMIT = { windowMs: 60_000, perWindow: 5, lockedPaceMs: 10_000, ...LOGIN_LOCK } as const;

export type LoginAttempt = ClientCount;

/** `rateLimits/admin-login_{hmac(address)}_m{minute}`, on the one per-client limiter (lib/http/client-limit.ts). */
const LOGIN_CLIENT_LIMIT: ClientLimit = {
  name: 'admin-login',
  windowLetter: 'm',
  kind: 'admin-login-minute',
  hashedAs: 'client',
  windowMs: LOGIN_LIMIT.windowMs,
  perWindow: LOGIN_LIMIT.perWindow,
};

/** The address's hash is keyed with the login's own key (derived from ADMIN_SECRET), like the secret's comparison. */
export const countLoginAttempt = (db: Firestore, input: { clientAddress: string; secret: string; now: Date }): Promise<LoginAttempt> =>
  countClientRequest(db, LOGIN_CLIENT_LIMIT, { ...input, secret: deriveKey(input.secret, 'login') });

/**
 * While the lock lasts and no client address is trusted: the first attempt of each pace slot is
 * compared, the rest wait for the next slot. The check is the write, as for the signup's mailbox
 * window: `create()` succeeds once per slot however many attempts arrive together.
 */
export async function claimLockedAttempt(db: Firestore, now: Date): Promise<LoginAttempt> {
  const slot = Math.floor(now.getTime() / LOGIN_LIMIT.lockedPaceMs);
  const slotEnd = (slot + 1) * LOGIN_LIMIT.lockedPaceMs;
  try {
    await rateLimitsCollection(db)
      .doc(`admin-login-pace_s${slot}`)
      .create({ kind: 'admin-login-pace', createdAt: now, expireAt: new Date(slotEnd + DAY_MS) });
    return { allowed: true };
  } catch (error) {
    if (isAlreadyExists(error)) return { allowed: false, retryAfterSec: retryAfter(slotEnd, now) };
    throw error;
  }
}

const retryAfter = (endMs: number, now: Date) => Math.max(1, Math.ceil((endMs - now.getTime()) / 1000));
