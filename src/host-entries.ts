/**
 * Host names in the environment: whether HOST is loopback or resolves at all, and the form of
 * host-list entries (WEB_FETCH_ALLOW_HOSTS, WEBHOOK_ALLOW_HOSTS, ALLOWED_HOSTS): a host name
 * (`api.example.com`, a trailing dot allowed), an IPv4 address or an IPv6 address, optionally
 * `*.example.com` / `.example.com` for subdomains where the list matches them. Never a URL, a
 * port, a path or spaces — those entries would silently never match.
 */
import { lookup } from 'node:dns/promises';
import { isIP, isIPv6 } from 'node:net';

/** True for 127.0.0.0/8, ::1 and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(h);
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
