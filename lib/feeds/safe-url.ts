import { isIP } from 'node:net';
import { isPublicAddress } from '../http/address-guard';

const MAX_URL_LENGTH = 2048;

/**
 * Only absolute http(s) URLs survive: a posting link is put in an email
 * as-is, so javascript:, data:, mailto: and friends become null. Relative
 * links are resolved against `base`; credentials in the URL
 * (https://bank.com@evil.example) are a phishing trick and are rejected.
 */
export function toSafeUrl(raw: string | null | undefined, base: string | null): string | null {
  const trimmed = raw?.trim();
  if (!trimmed) return null;
  let url: URL;
  try {
    url = base ? new URL(trimmed, base) : new URL(trimmed);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  if (url.href.length > MAX_URL_LENGTH) return null;
  return url.href;
}

/**
 * A safe URL that a subscriber may be shown as a posting's link: also not aimed inside the
 * reader's own network. A poster's link to http://169.254.169.254/ or http://192.168.1.1/ would
 * be opened by the subscriber's browser, on the subscriber's network (a router page, a cloud
 * metadata service, a CSRF target). The URL parser has already turned 127.1, 2130706433 and
 * 0x7f.0.0.1 into 127.0.0.1, so only the canonical form is checked; `localhost` and `*.localhost`
 * are loopback by definition (RFC 6761). Names are not resolved: what a public name points at is
 * the reader's DNS's business, and a lookup per posting would let a poster watch Scout's resolver.
 */
export function toPostingLink(raw: string | null | undefined, base: string | null): string | null {
  const safe = toSafeUrl(raw, base);
  if (safe === null) return null;
  return aimsInsideTheReadersNetwork(new URL(safe).hostname) ? null : safe;
}

function aimsInsideTheReadersNetwork(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && !isPublicAddress(host);
}
