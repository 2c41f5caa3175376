import { createHmac } from 'node:crypto';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Config } from '../runtime/config';

/**
 * Every caller whose address Scout cannot trust counts as this one client. Sharing a bucket is
 * the safe failure: a forged header can then never buy a caller a fresh allowance.
 */
export const UNKNOWN_CLIENT = 'unknown';

/** X-Forwarded-For entries looked at, from the right: more hops than this are not a deployment. */
const MAX_ENTRIES = 16;

/**
 * The client's address, from what the platform guarantees and nothing the client can write
 * (docs/design.md §2.12). The one place the signup limits, the login limits and the auth-failure log
 * learn who is calling.
 *
 * - On Vercel (`VERCEL`, which Vercel sets): `X-Forwarded-For`, which Vercel overwrites with the
 *   address it accepted the connection from, so a client cannot set it. Its last entry is taken.
 * - Elsewhere, `TRUSTED_PROXY_HOPS=n ≥ 1` proxies in front each append the address they accepted
 *   from: the client is the n-th entry from the right. Entries further left are the client's own.
 * - `TRUSTED_PROXY_HOPS=0`: the client is the socket's peer, but a Next route handler never sees
 *   the socket, and `next start` writes the peer into `X-Forwarded-For` only when the client sent
 *   none, so a header that names the peer cannot be told from a forged one. No header is
 *   trusted: every caller is UNKNOWN_CLIENT, and the per-client limits are shared by all.
 *
 * An IPv6 client is its /64 (one customer line commonly holds a whole /64, which would otherwise
 * be 2^64 clients); an IPv4-mapped IPv6 address is its IPv4 address. Anything that is not an
 * address where the client's address should be is UNKNOWN_CLIENT.
 */
export function clientAddressOf(request: Request, config: Pick<Config, 'VERCEL' | 'TRUSTED_PROXY_HOPS'>): string {
  const hops = config.VERCEL ? 1 : config.TRUSTED_PROXY_HOPS;
  if (hops === 0) return UNKNOWN_CLIENT;
  const header = request.headers.get('x-forwarded-for');
  if (header === null) return UNKNOWN_CLIENT;
  const entries = lastEntries(header, Math.min(hops, MAX_ENTRIES));
  if (entries.length < hops) return UNKNOWN_CLIENT;
  return normalise(entries[entries.length - hops]) ?? UNKNOWN_CLIENT;
}

/**
 * The one keyed hash of a client address, for every place that must tell clients apart without
 * keeping their addresses (a rate limit's counter, a log line): the same client and purpose read the
 * same, and neither a stored id nor a log can be turned back into addresses.
 */
export const clientAddressHash = (purpose: string, clientAddress: string, secret: string | Buffer, chars: number) =>
  createHmac('sha256', secret).update(`${purpose}:${clientAddress.trim().toLowerCase()}`).digest('base64url').slice(0, chars);

/** A client address as log lines show it. */
export const clientLogId = (clientAddress: string, secret: string) => clientAddressHash('log-client', clientAddress, secret, 16);

/** The last `count` comma-separated entries, without splitting the whole of a huge header. */
function lastEntries(header: string, count: number): string[] {
  const entries: string[] = [];
  let end = header.length;
  while (entries.length < count) {
    const comma = header.lastIndexOf(',', end - 1);
    entries.unshift(header.slice(comma + 1, end).trim());
    if (comma < 0) break;
    end = comma;
  }
  return entries;
}

function normalise(entry: string): string | null {
  const host = stripPort(entry).replace(/%.*$/, '');
  const version = isIP(host);
  if (version === 4) return host;
  if (version !== 6) return null;
  const address = ipaddr.IPv6.parse(host);
  // ::ffff:a.b.c.d is an IPv4 client seen through a dual-stack socket.
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  return `${address.parts
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** `[v6]:port` and `a.b.c.d:port` (some proxies append the port) → the address; anything else as it is. */
function stripPort(entry: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry);
  if (bracketed) return bracketed[1];
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(entry);
  return v4WithPort ? v4WithPort[1] : entry;
}
