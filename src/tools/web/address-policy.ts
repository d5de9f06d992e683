/**
 * Which IP addresses web_fetch may connect to (the SSRF guard's rule table).
 *
 * Refused: loopback, private (RFC 1918, IPv6 unique-local), link-local, CGNAT / shared address space
 * (RFC 6598), multicast, unspecified, reserved / documentation ranges, cloud metadata endpoints
 * (169.254.169.254, fd00:ec2::254, 100.100.100.200) and IPv6 forms that embed an IPv4 address
 * (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96` (RFC 6052), local-use NAT64 `64:ff9b:1::/48`
 * (RFC 8215), 6to4 `2002::/16` (RFC 3056), Teredo `2001::/32` (RFC 4380)) whenever an embedded
 * address is refused. Tunnelling and translation prefixes are treated alike: decoded and judged by
 * the IPv4 addresses they lead to, not refused as a whole. Ranges: IANA IPv4/IPv6 Special-Purpose
 * Address Registries (RFC 6890).
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

/** An IPv4 address carried inside an IPv6 address, and the form that carries it (`NAT64`, `Teredo`…). */
export interface EmbeddedIPv4 {
  v4: string;
  form: string;
}

/** The 32 bits from bit `bit` (0 = most significant) of the 128-bit address `groups`, as dotted IPv4; bits 64–71 (the RFC 6052 "u" octet) are passed over. */
function v4AtBit(groups: number[], bit: number): string {
  const value = groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
  let v4 = 0n;
  let taken = 0;
  for (let b = bit; taken < 32; b++) {
    if (b >= 64 && b < 72) continue;
    v4 = (v4 << 1n) | ((value >> BigInt(127 - b)) & 1n);
    taken++;
  }
  return [24n, 16n, 8n, 0n].map((s) => Number((v4 >> s) & 0xffn)).join('.');
}

/** Whether bits [from, 128) of `groups` are all zero. */
function zeroFrom(groups: number[], from: number): boolean {
  const value = groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
  return from >= 128 || (value & ((1n << BigInt(128 - from)) - 1n)) === 0n;
}

/**
 * Every IPv4 address an IPv6 address leads to, by:
 * - IPv4-mapping (`::ffff:0:0/96`): the last 32 bits;
 * - NAT64 with the well-known prefix (`64:ff9b::/96`, RFC 6052): the last 32 bits;
 * - local-use NAT64 (`64:ff9b:1::/48`, RFC 8215): the network chooses its prefix length inside the
 *   /48, so each RFC 6052 §2.2 layout that fits (/48, /56, /64, /96) whose reserved bits (64–71 and
 *   the suffix) are zero is a candidate — `64:ff9b:1::7f00:1` is 127.0.0.1 with a /96 prefix;
 * - 6to4 (`2002::/16`, RFC 3056): bits 16–47;
 * - Teredo (`2001::/32`, RFC 4380 §4): the server at bits 32–63, and the client at bits 96–127
 *   XOR 0xffffffff (`2001:0:4136:e378:8000:63bf:80ff:fffe` is client 127.0.0.1 behind server
 *   65.54.227.120), form `Teredo server` and `Teredo`.
 * @returns an empty array for any other address or a string that is not IPv6.
 */
export function embeddedIPv4s(address: string): EmbeddedIPv4[] {
  const g = ipv6Groups(address);
  if (!g) return [];
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return [{ v4: v4FromGroups(g[6], g[7]), form: 'IPv4-mapped' }];
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return [{ v4: v4FromGroups(g[6], g[7]), form: 'NAT64' }];
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) {
    // Shortest prefix first: a layout with more reserved zero bits is the likelier reading.
    const layouts: [prefix: number, suffixFrom: number][] = [[48, 88], [56, 96], [64, 104], [96, 128]];
    const found: EmbeddedIPv4[] = [];
    for (const [prefix, suffixFrom] of layouts) {
      const uZero = prefix === 96 || (g[4] >> 8) === 0;
      if (!uZero || !zeroFrom(g, suffixFrom)) continue;
      const v4 = v4AtBit(g, prefix === 64 ? 72 : prefix);
      if (!found.some((e) => e.v4 === v4)) found.push({ v4, form: 'NAT64 (local-use)' });
    }
    return found;
  }
  if (g[0] === 0x2002) return [{ v4: v4FromGroups(g[1], g[2]), form: '6to4' }];
  if (g[0] === 0x2001 && g[1] === 0) {
    return [
      { v4: v4FromGroups(g[6] ^ 0xffff, g[7] ^ 0xffff), form: 'Teredo' },
      { v4: v4FromGroups(g[2], g[3]), form: 'Teredo server' },
    ];
  }
  return [];
}

/** The first of {@link embeddedIPv4s}, else null. */
export function embeddedIPv4(address: string): EmbeddedIPv4 | null {
  return embeddedIPv4s(address)[0] ?? null;
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
  const embedded = embeddedIPv4s(address);
  if (embedded.length > 0) {
    for (const e of embedded) {
      const inner = blockedReason(e.v4);
      if (inner) return `${e.form} form of ${inner} address ${e.v4}`;
    }
    return null;
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
