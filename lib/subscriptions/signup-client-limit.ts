import type { Firestore } from 'firebase-admin/firestore';
import { clientAddressKey, countClientRequest, type ClientCount, type ClientLimit } from '../http/client-limit';
import { SIGNUP_LIMITS } from '../http/rate-limit';

/**
 * Signup attempts from one client address per hour: `rateLimits/client_{hmac(address)}_h{hour}`.
 * The signup form and a request for a new preferences link (email-preferences-link.ts) share it.
 */
export const SIGNUP_CLIENT_LIMIT: ClientLimit = {
  name: 'client',
  windowLetter: 'h',
  kind: 'client-hour',
  hashedAs: 'signup-client',
  windowMs: SIGNUP_LIMITS.clientWindowMs,
  perWindow: SIGNUP_LIMITS.clientPerWindow,
};

export const countClientAttempt = (db: Firestore, input: { clientAddress: string; secret: string; now: Date }): Promise<ClientCount> =>
  countClientRequest(db, SIGNUP_CLIENT_LIMIT, input);

export const clientKey = (clientAddress: string, secret: string) => clientAddressKey(SIGNUP_CLIENT_LIMIT, clientAddress, secret);
