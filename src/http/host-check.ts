/**
 * DNS-rebinding guard for an API without tokens. With AUTH_TOKENS empty the service binds
 * loopback only, but a web page can still reach it: it resolves its own name (e.g.
 * `rebind.attacker.example`) to 127.0.0.1 and then sends same-origin requests, which carry
 * `Host: rebind.attacker.example:<port>`. So without tokens only requests whose Host names a
 * loopback address or name are served (`localhost`, `*.localhost`, 127.0.0.0/8, `[::1]`, any port),
 * plus the names in ALLOWED_HOSTS; any other Host gets 421 `host_not_allowed` with the error
 * envelope. A request without a Host header (HTTP/1.0; never a browser) passes. With tokens set the
 * check is off: a rebinding page has no token.
 */
import type { FastifyInstance } from 'fastify';
import { isLoopbackHost } from '../config.js';
import { envelope } from './errors.js';

/** The host name of a Host header value (port and IPv6 brackets removed, lower case). */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') < 0 ? undefined : h.indexOf(']'));
  return h.replace(/:\d*$/, '').replace(/\.$/, '');
}

/** Whether a request with Host `header` may be served when no tokens are configured. */
export function hostAllowed(header: string, allowed: readonly string[]): boolean {
  const name = hostName(header);
  if (isLoopbackHost(name) || name.endsWith('.localhost')) return true;
  return allowed.some((a) => hostName(a) === name);
}

/** Install the check (a no-op when `tokens` is non-empty). */
export function installHostCheck(app: FastifyInstance, opts: { tokens: readonly string[]; allowedHosts: readonly string[] }): void {
  if (opts.tokens.length > 0) return;
  app.addHook('onRequest', async (request, reply) => {
    const host = request.headers.host;
    if (host === undefined || hostAllowed(host, opts.allowedHosts)) return;
    return reply
      .code(421)
      .send(envelope('host_not_allowed', `Host ${JSON.stringify(host)} is not served: without AUTH_TOKENS this service answers only requests addressed to a loopback name or address (localhost, 127.0.0.1, [::1]) or to a name in ALLOWED_HOSTS`, { host }));
  });
}
