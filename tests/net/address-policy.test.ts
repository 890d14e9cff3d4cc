// Which addresses the shared fetch refuses: metadata and link-local always, local ranges when asked.
import { describe, expect, it } from 'vitest';
import { embeddedIpv4, ipv6Groups, refusalReason } from '../../src/net/address-policy.js';

const OPEN = { blockPrivateNetwork: false };
const BLOCKING = { blockPrivateNetwork: true };

describe('refusalReason', () => {
  it.each([
    '169.254.169.254',
    '169.254.0.1',
    '100.100.100.200',
    'fe80::1',
    'fe80::1%eth0',
    'febf::ffff',
    'fd00:ec2::254',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '2002:a9fe:a9fe::1',
  ])('always refuses the link-local or metadata address %s', (address) => {
    expect(refusalReason(address, OPEN)).toBeDefined();
    expect(refusalReason(address, BLOCKING)).toBeDefined();
  });

  it('names the metadata range in its reason', () => {
    expect(refusalReason('169.254.169.254', OPEN)).toMatch(/link-local.*metadata/);
    expect(refusalReason('fd00:ec2::254', OPEN)).toMatch(/metadata/);
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'this network'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['ff02::1', 'multicast'],
  ])('refuses %s (%s) only when private networks are blocked', (address, label) => {
    expect(refusalReason(address, OPEN)).toBeUndefined();
    expect(refusalReason(address, BLOCKING)).toContain(label);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8'])(
    'allows the public address %s even when private networks are blocked',
    (address) => {
      expect(refusalReason(address, BLOCKING)).toBeUndefined();
    },
  );

  it('refuses anything that is not an IP address', () => {
    expect(refusalReason('example.com', OPEN)).toBe('not an IP address');
    expect(refusalReason('', OPEN)).toBe('not an IP address');
  });

  it('accepts an IPv6 literal in URL brackets', () => {
    expect(refusalReason('[::1]', BLOCKING)).toContain('loopback');
  });
});

// Moved from the indexer's old private-address check: the same addresses, judged by the shared policy with blocking on.
describe('refusalReason with private networks blocked (the indexer default)', () => {
  it.each(['127.0.0.1', '10.0.0.5', '172.16.3.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', 'not-an-ip'])(
    'refuses %s',
    (address) => {
      expect(refusalReason(address, BLOCKING)).toBeDefined();
    },
  );

  it.each(['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '172.32.0.1', '::ffff:1.1.1.1'])('allows %s', (address) => {
    expect(refusalReason(address, BLOCKING)).toBeUndefined();
  });
});

describe('ipv6Groups and embeddedIpv4', () => {
  it('expands compressed and dotted forms to eight groups', () => {
    expect(ipv6Groups('fd00:ec2::254')).toEqual([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254]);
    expect(ipv6Groups('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    expect(ipv6Groups('1.2.3.4')).toBeUndefined();
  });

  it('finds the IPv4 address inside mapped, NAT64, 6to4 and Teredo addresses', () => {
    expect(embeddedIpv4('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(embeddedIpv4('64:ff9b::7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('2002:c0a8:101::')).toBe('192.168.1.1');
    expect(embeddedIpv4('2001:0:4136:e378:8000:63bf:3fff:fdd2')).toBe('192.0.2.45');
    expect(embeddedIpv4('::1')).toBeUndefined();
    expect(embeddedIpv4('2606:4700::1111')).toBeUndefined();
  });
});
