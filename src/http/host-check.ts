/**
 * DNS-rebinding guard for an API without tokens. With AUTH_TOKENS empty the service binds
 * loopback only, but a web page can still reach it: it resolves its own name (e.g.
 * `rebind.attacker.example`) to 127.0.0.1 and then sends same-origin requests, which carry
 * `Host: rebind.attacker.example:<port>`. So without tokens only requests whose Host names a
 * loopback address or name are served (`localhost`, `*.localhost`, 127.0.0.0/8, `[::1]`, any port),
 * plus the names in ALLOWED_HOSTS; any other Host gets 421 `host_not_allowed` with the error
 * envelope. A request without a Host header (HTTP/1.0 only, {@link installHostRequired}; never a browser) passes. With tokens set the
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
/**
 * Answer an HTTP/1.1 request without a `Host` header (RFC 9112 §3.2 makes it a 400) with the error
 * envelope: 400 `missing_host`, details `{header: "host", http_version}`, and `Connection: close`.
 * Node's own check (the server option `requireHostHeader`) answers with an empty body, so the app
 * turns it off and refuses here, in the first `onRequest` hook, before auth or any route. HTTP/1.0
 * requests may leave Host out and are served.
 */
export function installHostRequired(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.headers.host !== undefined || request.raw.httpVersion !== '1.1') return;
    return reply
      .code(400)
      .header('Connection', 'close')
      .send(envelope('missing_host', 'the request has no Host header, which HTTP/1.1 requires: send `Host: <name or address>:<port>` naming the server you connect to (e.g. `Host: localhost:8787`)', { header: 'host', http_version: request.raw.httpVersion }));
  });
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
