import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../lib/http/address-guard';

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
  // What the URL parser makes of [::127.0.0.1]: an IPv4-compatible address, deprecated, which
  // ipaddr.js calls plain unicast. Every IPv6 address outside 2000::/3 is refused now.
  ['::7f00:1', 'IPv4-compatible loopback (::127.0.0.1)'],
  ['::a9fe:a9fe', 'IPv4-compatible metadata (::169.254.169.254)'],
  ['::a00:1', 'IPv4-compatible 10.0.0.1'],
  ['::808:808', 'IPv4-compatible, even of a public address (::/96 is deprecated)'],
  ['::1:0:7f00:1', 'inside ::/8, not global unicast'],
  ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
  ['64:ff9b:1::a00:1', 'local-use NAT64 64:ff9b:1::/48'],
  ['2002:a9fe:a9fe::1', '6to4 of 169.254.169.254'],
  ['2002:808:808::1', '6to4, even of a public address'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo with a server and client'],
  ['100::1', 'discard-only 100::/64'],
  ['2001:2::1', 'benchmarking'],
  ['2001:10::1', 'deprecated ORCHID'],
  ['3fff::1', 'documentation 3fff::/20'],
  ['4000::1', 'outside 2000::/3 (unassigned)'],
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
