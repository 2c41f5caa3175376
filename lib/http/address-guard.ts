import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';

/** IPv6 global unicast: every address Scout may reach over IPv6 lies in it. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Whether Scout may connect to this address (a feed, a subscriber's webhook): only global unicast. Everything ipaddr.js names a
 * special range is refused — loopback, private, link-local (169.254.169.254, the cloud metadata
 * service), unique-local, carrier-grade NAT, multicast, broadcast, reserved, and every IPv6 form
 * that embeds an IPv4 address (mapped, NAT64, 6to4, Teredo), since those can point back inside.
 * For IPv6 the rule is an allow-list, not a deny-list: inside 2000::/3 and named by no special
 * range. ipaddr.js calls the deprecated IPv4-compatible ::/96 plain unicast (the URL parser turns
 * [::127.0.0.1] into ::7f00:1), so a deny-list alone let it through; outside 2000::/3 nothing is
 * routable on the internet anyway.
 */
export function isPublicAddress(address: string): boolean {
  if (!isIP(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.range() !== 'unicast') return false;
  return parsed.kind() === 'ipv4' || (parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6);
}

/** Raised while connecting; a feed's error or a channel's outcome reports it as "blocked address", never naming the target. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_BLOCKED_ADDRESS';

  constructor() {
    super('blocked address');
    this.name = 'BlockedAddressError';
  }
}

/**
 * DNS resolution that refuses a name with any non-public address. It runs for the connection
 * itself, so the address checked is the address connected to: a name that resolves to a public
 * address for a check and a private one a moment later (DNS rebinding) gains nothing.
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '');
    if (addresses.length === 0 || !addresses.every((a) => isPublicAddress(a.address))) return callback(new BlockedAddressError(), '');
    // Node asks for every address when it races IPv4 and IPv6 (autoSelectFamily), else for one.
    if ((options as { all?: boolean }).all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};

/**
 * undici 8 offers HTTP/2 by default. Sources are read over HTTP/1.1, as before that default, until
 * HTTP/2 is taken on deliberately: the fetch's error taxonomy, timeouts and size cap are tested
 * against HTTP/1.1 answers only.
 */
export const SOURCE_HTTP_VERSION = { allowH2: false } as const;

/**
 * The connector behind the public-only agent: every connection it opens goes to a public address.
 * Node skips `lookup` for a host that is already an address (http://127.0.0.1/, http://[::1]/), so
 * it checks those itself. Exported for callers that wrap it (a channel's send notes whether the
 * connection was made, which decides whether a failure may have delivered).
 */
export function createPublicOnlyConnector(): buildConnector.connector {
  const connect = buildConnector({ lookup: publicOnlyLookup, ...SOURCE_HTTP_VERSION });
  return (options, callback) => {
    if (isIP(options.hostname) && !isPublicAddress(options.hostname)) return callback(new BlockedAddressError(), null);
    // undici's connector returns the socket it opened (typed void): passed on for a caller that must close one still connecting.
    return connect(options, callback);
  };
}

/** An HTTP agent that connects only to public addresses. */
export function createPublicOnlyAgent(): Agent {
  return new Agent({ ...SOURCE_HTTP_VERSION, connect: createPublicOnlyConnector() });
}
