import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../lib/feeds/address-guard';

// Every range a feed must never reach unless the operator configured it, and a few public
// addresses on either side of them so the table also proves nothing public is caught.
const BLOCKED: [string, string][] = [
  ['0.0.0.0', 'this network (0.0.0.0/8)'],
  ['0.255.255.255', 'this network (0.0.0.0/8)'],
  ['10.0.0.1', 'private 10/8'],
  ['10.255.255.255', 'private 10/8'],
  ['100.64.0.1', 'carrier-grade NAT 100.64/10'],
  ['100.127.255.254', 'carrier-grade NAT 100.64/10'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback 127/8'],
  ['169.254.169.254', 'cloud metadata (link-local)'],
  ['169.254.0.1', 'link-local'],
  ['172.16.0.1', 'private 172.16/12'],
  ['172.31.255.255', 'private 172.16/12'],
  ['192.0.0.1', 'IETF protocol assignments'],
  ['192.0.2.1', 'documentation'],
  ['192.168.1.1', 'private 192.168/16'],
  ['198.18.0.1', 'benchmarking'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved 240/4'],
  ['255.255.255.255', 'broadcast'],
  ['::', 'unspecified'],
  ['::1', 'IPv6 loopback'],
  ['fc00::1', 'unique-local fc00::/7'],
  ['fd12:3456:789a::1', 'unique-local fc00::/7'],
  ['fe80::1', 'link-local fe80::/10'],
  ['febf:ffff::1', 'link-local fe80::/10'],
  ['ff02::1', 'IPv6 multicast'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
  ['::ffff:8.8.8.8', 'IPv4-mapped, even of a public address'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex form'],
  ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
  ['2002:7f00:1::', '6to4 of 127.0.0.1'],
  ['2001::1', 'Teredo'],
  ['2001:db8::1', 'documentation'],
  ['fec0::1', 'deprecated site-local'],
  ['', 'empty'],
  ['localhost', 'a name, not an address'],
  ['127.1', 'shorthand is not an address here'],
  ['999.1.1.1', 'malformed'],
];

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '100.63.255.255',
  '100.128.0.1',
  '172.15.255.255',
  '172.32.0.1',
  '169.253.255.255',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
];

describe('isPublicAddress', () => {
  it.each(BLOCKED)('refuses %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(PUBLIC)('allows the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});
