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
import { duplicateHeaderIssue, headerFieldCount } from './duplicate-header.js';
import { envelope, type ErrorEnvelope } from './errors.js';
import { STREAM_TOKEN_PARAM, STREAM_TOKEN_ROUTES } from './stream-token.js';

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
  /** What a refused request to this route is told to send (undefined: {@link API_TOKENS}). */
  expectationFor?: (request: FastifyRequest) => BearerExpectation | undefined;
}

/** Why a request failed the bearer check (see {@link unauthorizedEnvelope}). */
type UnauthorizedReason = 'missing_token' | 'invalid_token' | 'not_bearer' | 'token_in_url' | 'stream_token_not_accepted';

function headerReason(header: string): 'missing_token' | 'invalid_token' | 'not_bearer' {
  const value = header.trim();
  if (/^Bearer\s+\S/i.test(value)) return 'invalid_token';
  return value === '' || /^Bearer$/i.test(value) ? 'missing_token' : 'not_bearer';
}

/**
 * What a 401 asks for, per guarded route: `token` the placeholder of the token to send
 * (`<token>`; `<METRICS_TOKEN>` on GET /metrics when only METRICS_TOKEN guards it), `invalid` the
 * message for a bearer token that matches none (it names the setting the token must come from),
 * `missing` the message without a token (how to send one), `streamTokens` whether stream tokens
 * exist (AUTH_TOKENS is set), so that a `stream_token` parameter is told where it is accepted.
 */
export interface BearerExpectation {
  token: string;
  invalid: string;
  missing: string;
  streamTokens: boolean;
}

/** The API's own tokens (AUTH_TOKENS), as every route but the open ones expects them. */
export const API_TOKENS: BearerExpectation = {
  token: '<token>',
  invalid: 'invalid bearer token: it is none of the tokens in AUTH_TOKENS; send Authorization: Bearer <one of AUTH_TOKENS> (METRICS_TOKEN is accepted on GET /metrics only)',
  missing: 'missing bearer token (Authorization: Bearer <token>)',
  streamTokens: true,
};

/**
 * The 401 `unauthorized` envelope of a request that failed the bearer check, saying what was wrong
 * and how to send the token (`want`, default {@link API_TOKENS}). Without an Authorization header:
 * a token-like query parameter ({@link tokenQueryParameter}) → tokens in the URL are not accepted
 * (reason `token_in_url`, details `parameter`); with `want.streamTokens`, a `stream_token`
 * parameter (on a route it does not open: the stream-token hook has answered on the routes it
 * opens) → stream tokens open only
 * {@link STREAM_TOKEN_ROUTES}, every other route needs the header (reason
 * `stream_token_not_accepted`, details `parameter`, `stream_routes`). Otherwise by the header:
 * `want.missing` without one or with an empty `Bearer` (`missing_token`), `want.invalid` for a
 * bearer token no entry matches (`invalid_token`), and for another scheme followed by credentials
 * (`Basic …`, as `curl -u` sends) the scheme's name when it is a word of letters (at most 20;
 * never anything after it) and what to send, for any other value that it is not a bearer token
 * (`not_bearer`). Details always carry `reason` and `expected`, the header to send
 * (`Authorization: Bearer <token>`); never the header's or a parameter's value.
 */
export function unauthorizedEnvelope(header: string | undefined, url: string, want: BearerExpectation = API_TOKENS): ErrorEnvelope {
  const expected = `Authorization: Bearer ${want.token}`;
  if (header === undefined) {
    const parameter = tokenQueryParameter(url);
    if (parameter) return envelope('unauthorized', `tokens in the URL are not accepted (query parameter ${parameter}): send ${expected} instead`, { reason: 'token_in_url' satisfies UnauthorizedReason, parameter, expected });
    if (want.streamTokens && hasStreamToken(url)) {
      return envelope(
        'unauthorized',
        `stream tokens (query parameter ${STREAM_TOKEN_PARAM}, from links.events) are accepted only on the event streams ${STREAM_TOKEN_ROUTES.slice(0, 3).join(', ')} (and a turn's token on ${STREAM_TOKEN_ROUTES[3]}); this route needs the header ${expected}`,
        { reason: 'stream_token_not_accepted' satisfies UnauthorizedReason, parameter: STREAM_TOKEN_PARAM, stream_routes: [...STREAM_TOKEN_ROUTES], expected },
      );
    }
  }
  const reason = headerReason(header ?? '');
  const details = { reason, expected };
  if (reason === 'invalid_token') return envelope('unauthorized', want.invalid, details);
  if (reason === 'missing_token') return envelope('unauthorized', want.missing, details);
  const scheme = /^([A-Za-z][A-Za-z-]{0,19})\s+\S/.exec((header ?? '').trim())?.[1];
  const used = scheme ? `uses the ${scheme} scheme` : 'is not a bearer token';
  return envelope('unauthorized', `the Authorization header ${used}; this service takes only a bearer token: send ${expected}`, details);
}

/**
 * The 400 `invalid_request` envelope of a request with more than one Authorization header, or
 * undefined: Node keeps only the first in `request.headers`, so which token counted would depend
 * on the order (a valid one then another let the request through; the reverse refused it) — the
 * request is refused whatever the values, as a repeated Host, Idempotency-Key or Last-Event-ID is.
 * Message `the Authorization header is given 2 times; give it once: send one Authorization: Bearer
 * <token>` (`want.token` the placeholder), details `[{path: "headers.authorization", code:
 * "duplicate_header", message}]`; never a header's value.
 */
export function duplicateAuthorization(request: FastifyRequest, want: BearerExpectation = API_TOKENS): ErrorEnvelope | undefined {
  const count = headerFieldCount(request.raw.rawHeaders, 'authorization');
  if (count < 2) return undefined;
  const issue = duplicateHeaderIssue('authorization', count);
  return envelope('invalid_request', `the Authorization header ${issue.message}: send one Authorization: Bearer ${want.token}`, [issue]);
}

/** True when request target `url` has a `stream_token` query parameter. */
function hasStreamToken(url: string): boolean {
  const q = url.indexOf('?');
  return q !== -1 && new URLSearchParams(url.slice(q + 1)).has(STREAM_TOKEN_PARAM);
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
 * Install the bearer check (a no-op without tokens): a request to a route that is not open with
 * more than one Authorization header gets 400 `invalid_request` ({@link duplicateAuthorization});
 * one with no valid `Authorization: Bearer` and no other credential `extraCheck` accepts, gets 401
 * `unauthorized` with `WWW-Authenticate: Bearer` and {@link unauthorizedEnvelope}'s message and
 * details (a token in the URL, a stream token on a route it does not open, or what is wrong with
 * the header), worded by `opts.expectationFor` for the request's route (GET /metrics names
 * METRICS_TOKEN), else {@link API_TOKENS}.
 */
export function installAuth(app: FastifyInstance, opts: AuthOptions): void {
  if (opts.tokens.length === 0) return;
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0];
    if (OPEN_PATHS.has(path) || OPEN_PREFIXES.some((p) => path.startsWith(p)) || request.method === 'OPTIONS') return;
    const want = opts.expectationFor?.(request) ?? API_TOKENS;
    const twice = duplicateAuthorization(request, want);
    if (twice) return reply.code(400).send(twice);
    const header = request.headers.authorization ?? '';
    const m = /^Bearer\s+(.+)$/i.exec(header);
    if (m && tokenMatches(m[1].trim(), opts.tokens)) return;
    if (opts.extraCheck?.(request)) return;
    return reply.code(401).header('WWW-Authenticate', 'Bearer').send(unauthorizedEnvelope(request.headers.authorization, request.url, want));
  });
}
