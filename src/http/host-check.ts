/**
 * DNS-rebinding guard for an API without tokens. With AUTH_TOKENS empty the service binds
 * loopback only, but a web page can still reach it: it resolves its own name (e.g.
 * `rebind.attacker.example`) to 127.0.0.1 and then sends same-origin requests, which carry
 * `Host: rebind.attacker.example:<port>`. So without tokens only requests whose Host names a
 * loopback address or name are served (`localhost`, `*.localhost`, 127.0.0.0/8, `[::1]`, any port),
 * plus the names in ALLOWED_HOSTS; any other Host gets 421 `host_not_allowed` with the error
 * envelope; so does a request whose absolute-form target (`GET http://name/path`) names such a host. A request without a Host header (HTTP/1.0 only, {@link installHostRequired}; never a browser) passes. With tokens set the
 * check is off: a rebinding page has no token.
 */
import type { FastifyInstance } from 'fastify';
import { isLoopbackHost } from '../config.js';
import { duplicateHeaderIssue, headerFieldCount } from './duplicate-header.js';
import { envelope } from './errors.js';
import { escapeUnsafeCharsClipped, quoteForDisplayClipped } from '../unsafe-chars.js';

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

/**
 * The authority (`host[:port]`) of an absolute-form request target (`GET http://name:port/path`),
 * which RFC 9112 §3.2.2 makes the request's host in place of the Host header; undefined for the
 * usual origin-form (`/path`) and for `*`; `""` (refused) for an empty authority. Any scheme
 * counts: the guard must not depend on which targets Node's parser and the router let through.
 */
export function absoluteFormAuthority(target: string | undefined): string | undefined {
  const m = target === undefined ? null : /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(target);
  if (m === null) return undefined;
  return m[1].slice(m[1].lastIndexOf('@') + 1);
}

/**
 * Refuse a request whose Host is missing, empty or repeated, in the first `onRequest` hook, before
 * auth or any route (Node's own check, the server option `requireHostHeader`, answers with an empty
 * body, so the app turns it off), each with `Connection: close`:
 * - an HTTP/1.1 request without a `Host` header, or with an empty one (RFC 9112 §3.2 makes both a
 *   400): 400 `missing_host`, details `{header: "host", http_version}`, the message saying whether
 *   the header is absent or empty and what to send. HTTP/1.0 requests may leave Host out and are served;
 * - more than one `Host` field (RFC 9112 §3.2: a server MUST answer 400; only the first would be
 *   checked by {@link installHostCheck}): 400 `invalid_request`, details `[{path: "headers.host",
 *   code: "duplicate_header", message}]`, as for a repeated Idempotency-Key or Last-Event-ID.
 */
export function installHostRequired(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    // Node keeps only the first Host in request.headers; rawHeaders has them all.
    const count = headerFieldCount(request.raw.rawHeaders, 'host');
    if (count > 1) {
      const issue = duplicateHeaderIssue('host', count);
      return reply
        .code(400)
        .header('Connection', 'close')
        .send(envelope('invalid_request', `the Host header ${issue.message}: send one \`Host: <name or address>:<port>\` naming the server you connect to`, [issue]));
    }
    const host = request.headers.host;
    if (request.raw.httpVersion !== '1.1' || (host !== undefined && host.trim() !== '')) return;
    const what = host === undefined ? 'the request has no Host header, which HTTP/1.1 requires' : 'the Host header is empty, and HTTP/1.1 requires it to name the server';
    return reply
      .code(400)
      .header('Connection', 'close')
      .send(envelope('missing_host', `${what}: send \`Host: <name or address>:<port>\` naming the server you connect to (e.g. \`Host: localhost:${request.socket.localPort ?? 8787}\`)`, { header: 'host', http_version: request.raw.httpVersion }));
  });
}

/**
 * Install the check (a no-op when `tokens` is non-empty): a request whose Host header, or the
 * authority of its absolute-form target (`GET http://name/path`, which replaces Host), names
 * neither a loopback name or address nor one of `allowedHosts` gets 421 `host_not_allowed`,
 * details `{host}` (and `{host, target: "absolute-form"}` for the target's authority).
 */
export function installHostCheck(app: FastifyInstance, opts: { tokens: readonly string[]; allowedHosts: readonly string[] }): void {
  if (opts.tokens.length > 0) return;
  const why = 'without AUTH_TOKENS this service answers only requests addressed to a loopback name or address (localhost, 127.0.0.1, [::1]) or to a name in ALLOWED_HOSTS';
  app.addHook('onRequest', async (request, reply) => {
    const authority = absoluteFormAuthority(request.raw.url);
    if (authority !== undefined && !hostAllowed(authority, opts.allowedHosts)) {
      return reply
        .code(421)
        .send(envelope('host_not_allowed', `the request target names host ${quoteForDisplayClipped(authority)}, which is not served: ${why}; send the path alone (\`GET /v1/...\`) with a Host header naming this server`, { host: escapeUnsafeCharsClipped(authority), target: 'absolute-form' }));
    }
    const host = request.headers.host;
    if (host === undefined || host.trim() === '' || hostAllowed(host, opts.allowedHosts)) return;
    return reply.code(421).send(envelope('host_not_allowed', `Host ${quoteForDisplayClipped(host)} is not served: ${why}`, { host: escapeUnsafeCharsClipped(host) }));
  });
}
