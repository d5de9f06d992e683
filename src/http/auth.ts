/**
 * Bearer-token authentication (`Authorization: Bearer <token>`, tokens from AUTH_TOKENS).
 * When AUTH_TOKENS is empty every request passes (the service then binds loopback only, see
 * src/main.ts). `/healthz` and `/readyz` are always open. Tokens are compared in constant time
 * and never logged (src/log.ts redacts the header).
 *
 * Extension point: `extraCheck` lets another credential (e.g. a per-turn stream token in the
 * query string for EventSource) authorize a request; it runs only when the bearer check fails.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { envelope } from './errors.js';

/** Paths that never require a token. */
export const OPEN_PATHS = new Set(['/healthz', '/readyz', '/console', '/console/']);
/** Path prefixes that never require a token (the console's static assets; they hold no secrets). */
export const OPEN_PREFIXES = ['/console/'];

const digest = (s: string) => createHash('sha256').update(s).digest();

/** True when `presented` equals one of `tokens` (constant time per token). */
export function tokenMatches(presented: string, tokens: readonly string[]): boolean {
  const p = digest(presented);
  let ok = false;
  for (const t of tokens) if (timingSafeEqual(p, digest(t))) ok = true;
  return ok;
}

export interface AuthOptions {
  tokens: readonly string[];
  /** Alternative credential check (returns true to allow). */
  extraCheck?: (request: FastifyRequest) => boolean;
}

/** Why an Authorization header value failed the bearer check (see {@link unauthorizedDetails}). */
type UnauthorizedReason = 'missing_token' | 'invalid_token' | 'not_bearer';

function unauthorizedReason(header: string): UnauthorizedReason {
  const value = header.trim();
  if (/^Bearer\s+\S/i.test(value)) return 'invalid_token';
  return value === '' || /^Bearer$/i.test(value) ? 'missing_token' : 'not_bearer';
}

/**
 * The 401 message for a request whose bearer check failed: `invalid bearer token: …` for a Bearer
 * header with a token no entry matches (saying to send one of AUTH_TOKENS, and that METRICS_TOKEN
 * works on GET /metrics only); for another scheme followed by credentials (`Basic …`, as
 * `curl -u` sends) the scheme's name when it is a word of letters (at most 20; never anything
 * after it) and what to send; for any other value, that it is not a bearer token; without the
 * header or with an empty Bearer, that it is missing.
 */
export function unauthorizedMessage(header: string): string {
  const reason = unauthorizedReason(header);
  if (reason === 'invalid_token') return 'invalid bearer token: it is none of the tokens in AUTH_TOKENS; send Authorization: Bearer <one of AUTH_TOKENS> (METRICS_TOKEN is accepted on GET /metrics only)';
  if (reason === 'missing_token') return 'missing bearer token (Authorization: Bearer <token>)';
  const scheme = /^([A-Za-z][A-Za-z-]{0,19})\s+\S/.exec(header.trim())?.[1];
  const used = scheme ? `uses the ${scheme} scheme` : 'is not a bearer token';
  return `the Authorization header ${used}; this service takes only a bearer token: send Authorization: Bearer <token>`;
}

/**
 * The 401 `details` for the same header: `reason` — `missing_token` (no header, or `Bearer` with
 * nothing after it), `invalid_token` (a bearer token no entry matches) or `not_bearer` (another
 * scheme, or a value that is no bearer token) — and `expected`, the header to send
 * (`Authorization: Bearer <token>`). Never echoes the header's value.
 */
export function unauthorizedDetails(header: string): { reason: UnauthorizedReason; expected: string } {
  return { reason: unauthorizedReason(header), expected: 'Authorization: Bearer <token>' };
}

/** Query parameter names (lower case) a client may put a bearer token in by mistake (stream tokens, `stream_token`, are another mechanism). */
const TOKEN_PARAMS = new Set(['access_token', 'auth_token', 'token', 'api_key', 'apikey', 'key', 'bearer', 'authorization']);

/**
 * The name (as sent) of the first query parameter of request target `url` that looks like a
 * bearer token put in the URL (`access_token`, `token`, `api_key`, `key`, …; any case), or
 * undefined. Only the name: the value is never read back to the client.
 */
export function tokenQueryParameter(url: string): string | undefined {
  const q = url.indexOf('?');
  if (q === -1) return undefined;
  for (const name of new URLSearchParams(url.slice(q + 1)).keys()) if (TOKEN_PARAMS.has(name.toLowerCase())) return name;
  return undefined;
}

/**
 * Install the bearer check (a no-op without tokens): a request to a route that is not open, with
 * no valid `Authorization: Bearer` and no other credential `extraCheck` accepts, gets 401
 * `unauthorized` with `WWW-Authenticate: Bearer`. Without an Authorization header but with a
 * token-like query parameter ({@link tokenQueryParameter}) the message says tokens in the URL are
 * not accepted (details `{reason: "token_in_url", parameter, expected}`).
 */
export function installAuth(app: FastifyInstance, opts: AuthOptions): void {
  if (opts.tokens.length === 0) return;
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0];
    if (OPEN_PATHS.has(path) || OPEN_PREFIXES.some((p) => path.startsWith(p)) || request.method === 'OPTIONS') return;
    const header = request.headers.authorization ?? '';
    const m = /^Bearer\s+(.+)$/i.exec(header);
    if (m && tokenMatches(m[1].trim(), opts.tokens)) return;
    if (opts.extraCheck?.(request)) return;
    const parameter = request.headers.authorization === undefined ? tokenQueryParameter(request.url) : undefined;
    const expected = 'Authorization: Bearer <token>';
    const body = parameter
      ? envelope('unauthorized', `tokens in the URL are not accepted (query parameter ${parameter}): send ${expected} instead`, { reason: 'token_in_url', parameter, expected })
      : envelope('unauthorized', unauthorizedMessage(header), unauthorizedDetails(header));
    return reply.code(401).header('WWW-Authenticate', 'Bearer').send(body);
  });
}
