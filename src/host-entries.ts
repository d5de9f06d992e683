/**
 * Host names in the environment: whether HOST is loopback or resolves at all, and the form of
 * host-list entries (WEB_FETCH_ALLOW_HOSTS, WEBHOOK_ALLOW_HOSTS, ALLOWED_HOSTS): a host name
 * (`api.example.com`, a trailing dot allowed), an IPv4 address or an IPv6 address, optionally
 * `*.example.com` / `.example.com` for subdomains where the list matches them. Never a URL, a
 * port, a path or spaces — those entries would silently never match.
 */
import { lookup } from 'node:dns/promises';
import { isIP, isIPv6 } from 'node:net';
import { ipv6Groups } from './tools/web/address-policy.js';

/**
 * True when `host` (HOST, or a Host header's name; brackets and case ignored) names a loopback
 * address of this machine: `localhost`; an IPv4 address in 127.0.0.0/8 in any numeric form the
 * system resolver reads as one (POSIX inet_addr(): `127.0.0.1`, `127.1`, `127.0.1`, `0x7f.1`,
 * `2130706433` — see {@link ipv4Number}); the IPv6 loopback address ::1 however written
 * (`0:0:0:0:0:0:0:1`, a `%zone` ignored); or the IPv4-mapped form of a 127/8 address
 * (`::ffff:127.0.0.1`, `::ffff:7f00:1`; RFC 4291 §2.5.5.2). Other forms embedding an IPv4 address
 * (NAT64, 6to4, the deprecated IPv4-compatible `::127.0.0.1`) are not this machine's loopback.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  const v4 = ipv4Number(h);
  if (v4 !== null) return v4 >>> 24 === 127;
  const g = ipv6Groups(h);
  if (g === null) return false;
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  return (zeros(7) && g[7] === 1) || (zeros(5) && g[5] === 0xffff && g[6] >> 8 === 127);
}

/**
 * The 32-bit value of `text` read as POSIX inet_addr()/inet_aton() read an IPv4 address (which the
 * system resolver, and so listening on HOST, also accepts): one to four parts separated by dots,
 * each decimal, octal with a leading `0` or hexadecimal with `0x`, the last part filling the bytes
 * left (`127.1` = 127.0.0.1, `2130706433` = 127.0.0.1); null when it is not such an address (a
 * part too large, a trailing dot, anything else). Source: POSIX.1-2017 inet_addr(), "IPv4
 * dotted decimal notation"; the WHATWG URL IPv4 parser reads them alike.
 */
export function ipv4Number(text: string): number | null {
  const parts = text.split('.');
  if (parts.length > 4) return null;
  const values: number[] = [];
  for (const p of parts) {
    const v = /^0x[0-9a-f]+$/i.test(p) ? parseInt(p.slice(2), 16) : /^0[0-7]*$/.test(p) ? parseInt(p, 8) : /^[1-9][0-9]*$/.test(p) ? Number(p) : NaN;
    if (!Number.isFinite(v)) return null;
    values.push(v);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255) || last >= 2 ** (8 * (4 - values.length))) return null;
  return values.reduce((acc, v, i) => acc + v * 2 ** (8 * (3 - i)), 0) + last;
}

/**
 * The refusal line for a HOST name that does not resolve (`code`: the lookup's error code, such
 * as ENOTFOUND or EAI_AGAIN).
 */
export function hostUnresolvedProblem(host: string, code: string): string {
  return `HOST=${host} does not resolve to an address of this machine (${code}); set HOST to an IP address (127.0.0.1, 0.0.0.0, ::1, ::) or a name that resolves`;
}

/**
 * Look up `host` (HOST as given; brackets and blanks as loadConfig reads them) the way
 * listening will (system resolver). Resolves to the lookup's error code (ENOTFOUND, EAI_AGAIN, …)
 * when it is a name that does not resolve; null for an IP address, a loopback name, unset, or a
 * name that resolves. Never rejects.
 */
export async function hostLookupFailure(host: string | undefined): Promise<string | null> {
  const h = (host ?? '').trim().replace(/^\[(.*)\]$/, '$1');
  if (h === '' || isIP(h) !== 0 || isLoopbackHost(h)) return null;
  try {
    await lookup(h);
    return null;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? 'lookup failed';
  }
}

/** One DNS label: letters, digits, `_` and inner `-`, up to 63 characters. */
const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
const HOST_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*\\.?$`, 'i');

/** How a list matches its entries. */
export interface HostEntryRules {
  /** `*.example.com` (and `.example.com`) allowed for subdomains. */
  wildcards: boolean;
  /** An IPv6 address must be written in brackets (`[::1]`), as in a Host header. */
  bracketedIPv6: boolean;
}

/**
 * Why `entry` (trimmed) is not a valid host-list entry under `rules`, as words that quote it
 * (`"http://x" is not a host name or IP address (…)`), or null when it is valid. Entries are not
 * secrets, so they are quoted as given.
 */
export function hostEntryProblem(entry: string, rules: HostEntryRules): string | null {
  const quoted = JSON.stringify(entry);
  if (/^\[.*\]$/.test(entry)) return isIPv6(entry.slice(1, -1)) ? null : `${quoted} is not an IPv6 address in brackets`;
  if (isIPv6(entry)) return rules.bracketedIPv6 ? `${quoted}: write an IPv6 address in brackets ([${entry}]), as in a Host header` : null;
  const name = rules.wildcards ? entry.replace(/^\*?\./, '') : entry;
  if (name.length <= 253 && HOST_NAME.test(name)) return null;
  const hint = rules.wildcards ? 'no scheme, port, path or spaces; *.example.com for subdomains' : 'no scheme, port, path, spaces or wildcards';
  return `${quoted} is not a host name or IP address (write the name only: ${hint})`;
}

/**
 * Every problem of a comma-separated host list `value` (entries trimmed), in order: an empty entry
 * (`a,,b`, a comma at an end) or a malformed one ({@link hostEntryProblem}).
 */
export function hostListProblems(value: string, rules: HostEntryRules): string[] {
  const entries = value.split(',').map((e) => e.trim());
  return entries.flatMap((e, i) => {
    if (e === '') return [`entry ${i + 1} of ${entries.length} is empty (two commas in a row, or a comma at an end)`];
    const p = hostEntryProblem(e, rules);
    return p ? [p] : [];
  });
}
