import { describe, expect, it } from 'vitest';
import { clientAddressOf, UNKNOWN_CLIENT } from '../../lib/http/client-address';

type Row = [name: string, headers: [string, string][], expected: string];

const on = (settings: { VERCEL?: boolean; TRUSTED_PROXY_HOPS?: number }) => ({ VERCEL: false, TRUSTED_PROXY_HOPS: 0, ...settings });

function addressOf(headers: [string, string][], settings: { VERCEL?: boolean; TRUSTED_PROXY_HOPS?: number }) {
  const init = new Headers();
  // append, not set: a header sent twice reaches the handler joined with ", ", as Node and undici join it.
  for (const [name, value] of headers) init.append(name, value);
  return clientAddressOf(new Request('http://localhost:3000/api/signup', { method: 'POST', headers: init }), on(settings));
}

/** What the caller can write itself: none of it may choose the client address. */
const FORGED: [string, string][] = [
  ['x-real-ip', '192.0.2.66'],
  ['x-vercel-forwarded-for', '192.0.2.67'],
  ['forwarded', 'for=192.0.2.68'],
  ['x-client-ip', '192.0.2.69'],
];

describe('clientAddressOf: only what the platform guarantees names the client', () => {
  describe('on Vercel (VERCEL=1): the X-Forwarded-For Vercel overwrites', () => {
    it.each<Row>([
      ['the address Vercel wrote', [['x-forwarded-for', '203.0.113.7']], '203.0.113.7'],
      ['other client-written headers are ignored', [...FORGED, ['x-forwarded-for', '203.0.113.7']], '203.0.113.7'],
      ['a list: its last entry, the one the platform wrote', [['x-forwarded-for', '198.51.100.1, 203.0.113.7']], '203.0.113.7'],
      ['no header at all: the shared bucket', [], UNKNOWN_CLIENT],
      ['only forged headers: the shared bucket', FORGED, UNKNOWN_CLIENT],
      ['not an address: the shared bucket', [['x-forwarded-for', 'evil']], UNKNOWN_CLIENT],
    ])('%s', (_name, headers, expected) => {
      expect(addressOf(headers, { VERCEL: true })).toBe(expected);
      // TRUSTED_PROXY_HOPS does not apply on Vercel: the platform's header is the answer.
      expect(addressOf(headers, { VERCEL: true, TRUSTED_PROXY_HOPS: 2 })).toBe(expected);
    });
  });

  describe('TRUSTED_PROXY_HOPS=0 (the default off Vercel): no header is trusted, every caller is one client', () => {
    it.each<Row>([
      ['a forged X-Forwarded-For', [['x-forwarded-for', '198.51.100.1']], UNKNOWN_CLIENT],
      ['a forged list', [['x-forwarded-for', '198.51.100.1, 203.0.113.7']], UNKNOWN_CLIENT],
      ['forged platform headers', FORGED, UNKNOWN_CLIENT],
      ['nothing', [], UNKNOWN_CLIENT],
    ])('%s', (_name, headers, expected) => {
      expect(addressOf(headers, { TRUSTED_PROXY_HOPS: 0 })).toBe(expected);
    });
  });

  describe('TRUSTED_PROXY_HOPS=n: the n-th X-Forwarded-For entry from the right', () => {
    it.each<[string, number, string, string]>([
      ['one proxy, an honest client', 1, '203.0.113.7', '203.0.113.7'],
      ['one proxy, a forged entry before the one it appended', 1, '198.51.100.1, 203.0.113.7', '203.0.113.7'],
      ['one proxy, many forged entries', 1, '1.1.1.1, 2.2.2.2, 3.3.3.3, 203.0.113.7', '203.0.113.7'],
      ['two proxies', 2, '203.0.113.7, 10.0.0.1', '203.0.113.7'],
      ['two proxies, a forged entry first', 2, '198.51.100.1, 203.0.113.7, 10.0.0.1', '203.0.113.7'],
      ['two proxies but one entry: it did not come through both, so nothing is trusted', 2, '203.0.113.7', UNKNOWN_CLIENT],
      ['an empty header', 1, '', UNKNOWN_CLIENT],
      ['an empty entry where the client should be', 2, '198.51.100.1, , 10.0.0.1', UNKNOWN_CLIENT],
      ['not an address where the client should be', 1, '203.0.113.7, evil', UNKNOWN_CLIENT],
      ['RFC 7239 "unknown"', 1, 'unknown', UNKNOWN_CLIENT],
      ['an IPv4 address with a port', 1, '203.0.113.7:51234', '203.0.113.7'],
      ['extra spaces', 1, '  203.0.113.7  ', '203.0.113.7'],
      ['leading zeros are not an address', 1, '203.000.113.007', UNKNOWN_CLIENT],
    ])('%s', (_name, hops, header, expected) => {
      expect(addressOf([['x-forwarded-for', header]], { TRUSTED_PROXY_HOPS: hops })).toBe(expected);
    });

    it('a header sent twice is one list, in order (the proxy appends to the last line)', () => {
      const headers: [string, string][] = [
        ['x-forwarded-for', '198.51.100.1'],
        ['x-forwarded-for', '203.0.113.7'],
      ];
      expect(addressOf(headers, { TRUSTED_PROXY_HOPS: 1 })).toBe('203.0.113.7');
    });

    it('no X-Forwarded-For at all: the shared bucket, whatever else was sent', () => {
      expect(addressOf(FORGED, { TRUSTED_PROXY_HOPS: 1 })).toBe(UNKNOWN_CLIENT);
    });

    it('a huge header costs no more than its last entries', () => {
      const header = `${'198.51.100.1, '.repeat(5_000)}203.0.113.7`;
      expect(addressOf([['x-forwarded-for', header]], { TRUSTED_PROXY_HOPS: 1 })).toBe('203.0.113.7');
    });
  });

  describe('IPv6: one client is its /64 (one subscriber line gets a whole /64)', () => {
    it.each<[string, string, string]>([
      ['a full address', '2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
      ['another address in the same /64', '2001:0DB8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
      ['a compressed prefix', '2001:db8::1', '2001:db8:0:0::/64'],
      ['in brackets with a port', '[2001:db8:1:2::9]:443', '2001:db8:1:2::/64'],
      ['with a zone', 'fe80::1%eth0', 'fe80:0:0:0::/64'],
      ['IPv4-mapped: the IPv4 address', '::ffff:203.0.113.7', '203.0.113.7'],
      ['not an address', '2001:db8:::1', UNKNOWN_CLIENT],
    ])('%s', (_name, header, expected) => {
      expect(addressOf([['x-forwarded-for', header]], { TRUSTED_PROXY_HOPS: 1 })).toBe(expected);
      expect(addressOf([['x-forwarded-for', header]], { VERCEL: true })).toBe(expected);
    });
  });
});
