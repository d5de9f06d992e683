/**
 * The SSRF guard: turn a URL into the one IP address web_fetch will connect to, refusing targets in
 * private address space (rules in ./address-policy.ts). The host is resolved exactly once here; the
 * caller then connects to the returned address (see ./pinned-request.ts), so a DNS answer that
 * changes between check and connect (DNS rebinding) cannot redirect the connection.
 *
 * IP literals in any spelling the WHATWG URL parser accepts (decimal `2130706433`, octal `0177.0.0.1`,
 * hex `0x7f.1`, bracketed IPv6) are normalized by `new URL()` before they are checked.
 */
import dns from 'node:dns';
import net from 'node:net';
import { addressPhrase, blockedReason } from './address-policy.js';

/** One resolved address. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a hostname (never an IP literal) to its addresses. Injected in tests; the default is
 * {@link systemResolver}. Throws (any error) when the name does not resolve.
 */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The operating system resolver (`getaddrinfo` via `dns.lookup`, all addresses, in resolver order). */
export const systemResolver: HostResolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** A refusal or resolution failure; its message is model-facing. */
export class FetchTargetError extends Error {
  /**
   * @param blocked for a refused address: the host as shown (`localhost (resolves to ::1)`) and
   *   its {@link blockedReason}, for callers that word their own message.
   */
  constructor(message: string, readonly blocked?: { shown: string; reason: string }) {
    super(message);
    this.name = 'FetchTargetError';
  }
}

/** The checked connection target for one URL. */
export interface CheckedTarget {
  /** Hostname as in the URL, brackets removed, lower case, trailing dot removed. */
  host: string;
  /** The address to connect to (already checked, or allowlisted). */
  address: string;
  family: 4 | 6;
  /** True when the host matched WEB_FETCH_ALLOW_HOSTS (private addresses permitted). */
  allowlisted: boolean;
}

/** Hostname of `url` without IPv6 brackets and trailing dot, lower case. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
}

/**
 * True when `host` matches an allowlist entry: an exact host (`127.0.0.1`, `localhost`,
 * `intranet.example`, `::1`) or a `*.example.com` / `.example.com` suffix pattern (subdomains only).
 */
export function hostAllowed(host: string, allowHosts: readonly string[]): boolean {
  for (const raw of allowHosts) {
    const entry = raw.trim().toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
    if (!entry) continue;
    if (entry.startsWith('*.') || entry.startsWith('.')) {
      const suffix = entry.slice(entry.indexOf('.'));
      if (host.endsWith(suffix) && host.length > suffix.length) return true;
    } else if (host === entry) {
      return true;
    }
  }
  return false;
}

/**
 * Check `url` and choose the address to connect to.
 * - IP literal host: checked as is (no DNS).
 * - Hostname: resolved once with `resolver`; refused if ANY answer is refused (a mixed answer is a
 *   classic rebinding setup); the first answer is the connection target.
 * - Allowlisted host: resolved the same way but not refused.
 * @throws FetchTargetError naming the host, the address and the reason, or the resolution failure.
 */
export async function checkTarget(url: URL, resolver: HostResolver, allowHosts: readonly string[]): Promise<CheckedTarget> {
  const host = bareHost(url);
  const allowlisted = hostAllowed(host, allowHosts);
  let addresses: ResolvedAddress[];
  const literal = net.isIP(host);
  if (literal !== 0) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await resolver(host);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new FetchTargetError(`could not resolve host ${host}${code ? ` (${code})` : ''}`);
    }
    if (addresses.length === 0) throw new FetchTargetError(`could not resolve host ${host} (no addresses)`);
  }
  if (!allowlisted) {
    for (const a of addresses) {
      const reason = blockedReason(a.address);
      if (reason) {
        const shown = literal !== 0 ? host : `${host} (resolves to ${a.address})`;
        throw new FetchTargetError(
          `refused to fetch ${shown}: ${addressPhrase(reason)} — web_fetch only reaches public internet addresses`,
          { shown, reason },
        );
      }
    }
  }
  return { host, address: addresses[0].address, family: addresses[0].family, allowlisted };
}
