// Which IP addresses a fetch for the model or the indexer may connect to: cloud metadata and link-local never, private ranges on request.
import { BlockList, isIP } from 'node:net';

/** What the policy is told by config (profiles.yaml `security.block_private_network`, passed as an env var). */
export interface AddressPolicy {
  /** Also refuse loopback, private, unique-local, CGNAT, multicast, reserved and 0.0.0.0 addresses. */
  blockPrivateNetwork: boolean;
}

interface Rule {
  label: string;
  list: BlockList;
}

function rule(label: string, cidr: string): Rule {
  const [network = '', prefix = ''] = cidr.split('/');
  const family = isIP(network) === 6 ? 'ipv6' : 'ipv4';
  const list = new BlockList();
  list.addSubnet(network, Number(prefix), family);
  return { label, list };
}

/**
 * Refused whatever the config says: a page fetched for the model must never reach the cloud metadata service
 * (credentials) or anything on the local link.
 */
const ALWAYS_REFUSED: readonly Rule[] = [
  rule('link-local, where cloud metadata services live', '169.254.0.0/16'),
  rule('a cloud metadata service', '100.100.100.200/32'),
  rule('IPv6 link-local', 'fe80::/10'),
  rule('the AWS IPv6 metadata service', 'fd00:ec2::254/128'),
];

/** Refused when blockPrivateNetwork is on: everything that is not the public internet. */
const PRIVATE_REFUSED: readonly Rule[] = [
  rule('"this network" (0.0.0.0/8, which reaches this machine)', '0.0.0.0/8'),
  rule('private', '10.0.0.0/8'),
  rule('carrier-grade NAT (shared)', '100.64.0.0/10'),
  rule('loopback', '127.0.0.0/8'),
  rule('private', '172.16.0.0/12'),
  rule('IETF protocol assignments', '192.0.0.0/24'),
  rule('private', '192.168.0.0/16'),
  rule('documentation (TEST-NET-1)', '192.0.2.0/24'),
  rule('benchmarking', '198.18.0.0/15'),
  rule('documentation (TEST-NET-2)', '198.51.100.0/24'),
  rule('documentation (TEST-NET-3)', '203.0.113.0/24'),
  rule('multicast', '224.0.0.0/4'),
  rule('reserved', '240.0.0.0/4'),
  rule('unspecified (::, which reaches this machine)', '::/128'),
  rule('loopback', '::1/128'),
  rule('IPv6 discard-only', '100::/64'),
  rule('IPv6 documentation', '2001:db8::/32'),
  rule('unique-local (private)', 'fc00::/7'),
  rule('site-local', 'fec0::/10'),
  rule('multicast', 'ff00::/8'),
];

/** The eight 16-bit groups of an IPv6 address (zone id dropped), or undefined when it is not one. */
export function ipv6Groups(text: string): number[] | undefined {
  const withoutZone = text.replace(/%.*$/, '');
  if (isIP(withoutZone) !== 6) return undefined;
  // A dotted IPv4 tail (::ffff:1.2.3.4) stands for the last two groups; rewrite it in hex first.
  const address = withoutZone.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a: string, b: string, c: string, d: string) =>
    `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
  );
  const [left = '', right] = address.split('::');
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const leftGroups = parse(left);
  const rightGroups = right === undefined ? [] : parse(right);
  const missing = 8 - leftGroups.length - rightGroups.length;
  return [...leftGroups, ...new Array<number>(Math.max(0, missing)).fill(0), ...rightGroups];
}

function ipv4From(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/**
 * The IPv4 address an IPv6 address carries inside it (IPv4-mapped, -compatible, -translated, NAT64, 6to4,
 * Teredo), or undefined. Such an address may reach the IPv4 host, so it is judged as that host.
 */
export function embeddedIpv4(text: string): string | undefined {
  const g = ipv6Groups(text);
  if (!g) return undefined;
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = g;
  const zeroPrefix = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0;
  if (zeroPrefix && g4 === 0 && g5 === 0xffff) return ipv4From(g6, g7); // ::ffff:a.b.c.d
  if (zeroPrefix && g4 === 0xffff && g5 === 0) return ipv4From(g6, g7); // ::ffff:0:a.b.c.d
  // ::a.b.c.d (deprecated IPv4-compatible), but not :: and ::1, which are IPv6's own.
  if (zeroPrefix && g4 === 0 && g5 === 0 && (g6 !== 0 || g7 > 1)) return ipv4From(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && (g2 === 0 || g2 === 1)) return ipv4From(g6, g7); // NAT64 64:ff9b::/96, 64:ff9b:1::/48
  if (g0 === 0x2002) return ipv4From(g1 ?? 0, g2 ?? 0); // 6to4
  if (g0 === 0x2001 && g1 === 0) return ipv4From(~g6 & 0xffff, ~g7 & 0xffff); // Teredo client
  return undefined;
}

function matchRule(rules: readonly Rule[], address: string): string | undefined {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  return rules.find((r) => r.list.check(address, family))?.label;
}

/**
 * Why `address` (an IP literal, as DNS returned it) must not be contacted, or undefined when it may be.
 * Link-local and cloud metadata addresses are always refused; private and local ranges only when
 * `blockPrivateNetwork` is on. Anything that is not an IP address is refused.
 */
export function refusalReason(address: string, { blockPrivateNetwork }: AddressPolicy): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(bare) === 0) return 'not an IP address';
  const candidates = [bare];
  const inner = isIP(bare) === 6 ? embeddedIpv4(bare) : undefined;
  if (inner) candidates.push(inner);
  for (const candidate of candidates) {
    const always = matchRule(ALWAYS_REFUSED, candidate);
    if (always) return always;
  }
  if (!blockPrivateNetwork) return undefined;
  for (const candidate of candidates) {
    const local = matchRule(PRIVATE_REFUSED, candidate);
    if (local) return local;
  }
  return undefined;
}
