/**
 * Which IP addresses web_fetch may connect to (the SSRF guard's rule table).
 *
 * Refused: loopback, private (RFC 1918, IPv6 unique-local), link-local, CGNAT / shared address space
 * (RFC 6598), multicast, unspecified, reserved / documentation ranges, cloud metadata endpoints
 * (169.254.169.254, fd00:ec2::254, 100.100.100.200) and IPv6 forms that embed an IPv4 address
 * (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) whenever the embedded
 * address is refused. Ranges: IANA IPv4/IPv6 Special-Purpose Address Registries (RFC 6890).
 */
import net from 'node:net';

/** Why an address is refused (used in the model-facing `Error:` text). */
export type BlockReason =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'CGNAT (shared address space)'
  | 'multicast'
  | 'unspecified'
  | 'reserved'
  | 'cloud metadata';

const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

type Range = [string, number, BlockReason];

const V4_RANGES: Range[] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['127.0.0.0', 8, 'loopback'],
  ['10.0.0.0', 8, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['169.254.0.0', 16, 'link-local'],
  ['100.64.0.0', 10, 'CGNAT (shared address space)'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // includes 255.255.255.255 broadcast
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
];

const V6_RANGES: Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'private'], // deprecated site-local
  ['fc00::', 7, 'private'], // unique-local
  ['ff00::', 8, 'multicast'],
  ['100::', 64, 'reserved'], // discard-only
  ['2001:db8::', 32, 'reserved'], // documentation
  ['::', 96, 'reserved'], // deprecated IPv4-compatible
];

function buildLists(ranges: Range[], family: 'ipv4' | 'ipv6'): [net.BlockList, BlockReason][] {
  return ranges.map(([addr, prefix, reason]) => {
    const list = new net.BlockList();
    list.addSubnet(addr, prefix, family);
    return [list, reason];
  });
}

const V4_LISTS = buildLists(V4_RANGES, 'ipv4');
const V6_LISTS = buildLists(V6_RANGES, 'ipv6');

/**
 * Expand an IPv6 literal (no brackets, no zone) to its eight 16-bit groups.
 * Returns null when `address` is not valid IPv6.
 */
export function ipv6Groups(address: string): number[] | null {
  if (net.isIPv6(address) === false) return null;
  let text = address.toLowerCase().split('%')[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = text.slice(0, -dotted[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [headText, tailText] = text.includes('::') ? text.split('::') : [text, undefined];
  const head = headText ? headText.split(':') : [];
  const tail = tailText ? tailText.split(':') : [];
  const zeros = tailText === undefined ? 0 : 8 - head.length - tail.length;
  const groups = [...head, ...Array<string>(zeros).fill('0'), ...tail].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

function v4FromGroups(hi: number, lo: number): string {
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/**
 * The IPv4 address embedded in an IPv6 address by IPv4-mapping (`::ffff:0:0/96`), NAT64
 * (`64:ff9b::/96`) or 6to4 (`2002::/16`), else null.
 */
export function embeddedIPv4(address: string): { v4: string; form: string } | null {
  const g = ipv6Groups(address);
  if (!g) return null;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return { v4: v4FromGroups(g[6], g[7]), form: 'IPv4-mapped' };
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return { v4: v4FromGroups(g[6], g[7]), form: 'NAT64' };
  if (g[0] === 0x2002) return { v4: v4FromGroups(g[1], g[2]), form: '6to4' };
  return null;
}

/**
 * Classify an IP literal (IPv4 dotted quad or IPv6 without brackets).
 * @returns null when the address may be fetched, else a human reason such as
 *   `"loopback"` or `"IPv4-mapped form of loopback address 127.0.0.1"`.
 * @throws never; a string that is not an IP literal yields `"not an IP address"`.
 */
export function blockedReason(address: string): string | null {
  const family = net.isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 4) {
    if (METADATA.has(address)) return 'cloud metadata';
    for (const [list, reason] of V4_LISTS) if (list.check(address, 'ipv4')) return reason;
    return null;
  }
  const groups = ipv6Groups(address);
  if (!groups) return 'not an IP address';
  const canonical = groups.map((x) => x.toString(16)).join(':');
  if (canonical === 'fd00:ec2:0:0:0:0:0:254') return 'cloud metadata';
  const embedded = embeddedIPv4(address);
  if (embedded) {
    const inner = blockedReason(embedded.v4);
    return inner ? `${embedded.form} form of ${inner} address ${embedded.v4}` : null;
  }
  for (const [list, reason] of V6_LISTS) if (list.check(address, 'ipv6')) return reason;
  return null;
}

/**
 * A {@link blockedReason} as a noun phrase for messages: `loopback address`, and for an embedded
 * IPv4 form the reason as it is (`IPv4-mapped form of loopback address 127.0.0.1`, which already
 * names the address). With `article`, preceded by `a`/`an` (`an unspecified address`), or `the`
 * for an embedded form (`the IPv4-mapped form of loopback address 127.0.0.1`).
 */
export function addressPhrase(reason: string, article = false): string {
  const embedded = / form of /.test(reason);
  const phrase = embedded ? reason : `${reason} address`;
  if (!article) return phrase;
  return `${embedded ? 'the' : /^[aeiou]/i.test(phrase) ? 'an' : 'a'} ${phrase}`;
}
