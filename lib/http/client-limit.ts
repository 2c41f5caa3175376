import type { Firestore } from 'firebase-admin/firestore';
import { DAY_MS } from '../store/timestamps';
import { clientAddressHash } from './client-address';
import { countAndRead, rateLimitsCollection } from './rate-limit';

/**
 * The one limit on what a client address may ask for in a fixed window, in Firestore (serverless
 * instances share no memory): each request adds one to `rateLimits/{name}_{key}_{windowLetter}{window}`
 * and reads it back (countAndRead), so concurrent requests never lose a count and never wait on
 * each other. The count read back may include later requests' increments: the limit's worth at
 * once all pass, but a burst beyond it can be refused before the limit is reached (90 at once
 * against a limit of 30 admitted between 0 and 22 on the emulator), and never admits one past it.
 * Sharded by client: one client's requests never make another's wait. Every counter carries
 * `expireAt` for the TTL policy and is never read after its window. Callers pass only an address
 * the platform guarantees (client-address.ts).
 *
 * The signup form's, the preview's and the ops login's limits are each a policy on it.
 */
export type ClientLimit = {
  /** The counter's id starts with it; the same name is the same counter. */
  name: string;
  /** The window's letter in the id: `m` for a minute, `h` for an hour. */
  windowLetter: 'm' | 'h';
  /** Stored on the counter, for whoever reads rateLimits/. */
  kind: string;
  /** What the address's hash is keyed for: the same address gets an unrelated key in each limit. */
  hashedAs: string;
  windowMs: number;
  perWindow: number;
};

export type ClientCount = { allowed: true } | { allowed: false; retryAfterSec: number };

/**
 * A client address as stored: a keyed hash (HMAC with a server secret), never the address, so a
 * leaked rateLimits collection cannot be turned back into IP addresses by hashing the 2^32 of them.
 */
export const clientAddressKey = (limit: Pick<ClientLimit, 'hashedAs'>, clientAddress: string, secret: string | Buffer) =>
  clientAddressHash(limit.hashedAs, clientAddress, secret, 22);

const windowOf = (limit: ClientLimit, now: Date) => Math.floor(now.getTime() / limit.windowMs);

/** The counter of this client's window. */
export const clientLimitId = (limit: ClientLimit, clientAddress: string, secret: string | Buffer, now: Date) =>
  `${limit.name}_${clientAddressKey(limit, clientAddress, secret)}_${limit.windowLetter}${windowOf(limit, now)}`;

/** Counts one request from the client against its window: allowed while the count is within `perWindow`. */
export async function countClientRequest(
  db: Firestore,
  limit: ClientLimit,
  input: { clientAddress: string; secret: string | Buffer; now: Date },
): Promise<ClientCount> {
  const windowEnd = (windowOf(limit, input.now) + 1) * limit.windowMs;
  const count = await countAndRead(rateLimitsCollection(db).doc(clientLimitId(limit, input.clientAddress, input.secret, input.now)), {
    kind: limit.kind,
    expireAt: new Date(windowEnd + DAY_MS),
  });
  if (count <= limit.perWindow) return { allowed: true };
  return { allowed: false, retryAfterSec: Math.max(1, Math.ceil((windowEnd - input.now.getTime()) / 1000)) };
}
