/**
 * Cross-site request guard. A page on another origin can make a browser send some requests
 * without a CORS preflight — a POST without a body, or with a `text/plain` or form body — and the
 * browser sends them even though the page cannot read the answer. Without AUTH_TOKENS nothing
 * else stands between such a page and `POST /v1/turns/{id}/cancel`, a job's stop or a workflow's
 * cancel; so a state-changing request (POST, PUT, PATCH, DELETE) is refused with 403
 * `origin_not_allowed` when
 * - its `Origin` header names an origin other than the service's own (the host and port of the
 *   request's `Host` header; the scheme is not compared, since a TLS proxy in front makes the
 *   page's `https:` reach the service as `http:`) and not in CORS_ORIGINS — `Origin: null`
 *   (a sandboxed frame, a `file:` page) and a value that is not an origin included; or
 * - it has no `Origin` but `Sec-Fetch-Site: cross-site`.
 * Requests without either header (curl, servers, SDKs) are unaffected, and so is a request from
 * the built-in console (same origin). With AUTH_TOKENS set, a request carrying `Authorization:
 * Bearer …` is not checked (auth decides): a page's script can set that header cross-origin only
 * after a CORS preflight its origin passed (src/http/cors.ts answers preflights for CORS_ORIGINS
 * only; Fetch standard, "CORS-safelisted request-header"), and a browser never attaches a bearer
 * token by itself — unlike Basic, Digest or Negotiate credentials it stores and sends with a
 * simple cross-site request, which are checked like any other — so a client whose origin cannot
 * be listed (a browser extension, an `app://` desktop shell) can still send its token. Without
 * AUTH_TOKENS every state-changing request is checked. GET and HEAD pass; a CORS preflight
 * (OPTIONS) that src/http/cors.ts did not answer — its origin is not in CORS_ORIGINS — gets the
 * same 403 saying so, instead of routing's 405.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isAllowedOrigin, parseCorsOrigins } from './cors.js';
import { envelope } from './errors.js';
import { escapeUnsafeCharsClipped, quoteForDisplayClipped } from '../unsafe-chars.js';

/** Methods that change state and are checked. */
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether `origin` (an Origin header) names the host and port the request was addressed to (`host`, its Host header). */
export function isOwnOrigin(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  try {
    const o = new URL(origin);
    if (o.origin === 'null' || (o.protocol !== 'http:' && o.protocol !== 'https:')) return false;
    // The Host header read with the page's scheme, so a default port written out (`:443`) or left out compares equal.
    return new URL(`${o.protocol}//${host}`).host === o.host;
  } catch {
    return false;
  }
}

/** `origin` in the form CORS_ORIGINS takes (`https://app.example.com`), or undefined for an opaque, malformed or non-http(s) one. */
function safeOrigin(origin: string): string | undefined {
  try {
    const o = new URL(origin);
    // A host name longer than DNS allows (253 characters, RFC 1035 §2.3.4) names no page: not echoed as one.
    return o.origin !== 'null' && (o.protocol === 'http:' || o.protocol === 'https:') && o.hostname.length <= 253 ? o.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The service's own origin as the request names it (for messages): `<scheme>://<Host>`, the Host header escaped and clipped (escapeUnsafeCharsClipped). */
function ownOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${escapeUnsafeCharsClipped(request.headers.host ?? 'localhost')}`;
}

/**
 * Install the guard as an `onRequest` hook (after CORS, before auth): a state-changing request
 * from a foreign origin gets 403 `origin_not_allowed`, details `{origin}` (or
 * `{sec_fetch_site: "cross-site"}` when it carries only that), its message naming the origin and
 * how to allow it (CORS_ORIGINS). `corsOrigins` are the CORS_ORIGINS entries; `tokensRequired`
 * whether AUTH_TOKENS is set.
 */
export function installOriginCheck(app: FastifyInstance, corsOrigins: readonly string[], tokensRequired: boolean): void {
  const allowed = parseCorsOrigins(corsOrigins);
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined && request.headers.origin !== undefined) {
      // A CORS preflight src/http/cors.ts did not answer: its origin is not allowed. Say so, rather
      // than the 405 routing would give (OPTIONS is no API method).
      const origin = request.headers.origin;
      return reply.code(403).send(envelope('origin_not_allowed', `this CORS preflight comes from origin ${quoteForDisplayClipped(origin)}, which may not call this API: pages are served cross-origin only from the origins in CORS_ORIGINS; to allow it, add it there (e.g. CORS_ORIGINS=${safeOrigin(origin) ?? 'https://app.example.com'}) and restart the service`, { origin: escapeUnsafeCharsClipped(origin) }));
    }
    if (!STATE_CHANGING.has(request.method)) return;
    // A bearer token needed a preflight and a script that has it: not a forged simple request (above).
    if (tokensRequired && /^bearer\s/i.test(request.headers.authorization ?? '')) return;
    const origin = request.headers.origin;
    const own = ownOrigin(request);
    const why = `a browser page on another origin may not change anything here: POST, PUT, PATCH and DELETE are served only to pages on this service's own origin (${own}) and to the origins in CORS_ORIGINS, and to clients that send no Origin header`;
    if (origin === undefined) {
      if (request.headers['sec-fetch-site'] !== 'cross-site') return;
      return reply.code(403).send(envelope('origin_not_allowed', `this ${request.method} comes from a page on another site (Sec-Fetch-Site: cross-site) and is refused: ${why}; send the request from a page listed in CORS_ORIGINS, or from a client that sends neither header`, { sec_fetch_site: 'cross-site' }));
    }
    if (isOwnOrigin(origin, request.headers.host) || isAllowedOrigin(allowed, origin)) return;
    const listable = safeOrigin(origin);
    const how = listable
      ? `to let pages on ${listable} call this API, add that origin to CORS_ORIGINS (e.g. CORS_ORIGINS=${listable}) and restart the service`
      : 'an opaque or malformed origin (a sandboxed frame, a file: page) cannot be allowed: serve the page from an http(s) origin listed in CORS_ORIGINS';
    return reply.code(403).send(envelope('origin_not_allowed', `this ${request.method} comes from origin ${quoteForDisplayClipped(origin)} and is refused: ${why}; ${how}`, { origin: escapeUnsafeCharsClipped(origin) }));
  });
}
