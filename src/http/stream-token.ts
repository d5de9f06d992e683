/**
 * Stream tokens: short-lived, turn-scoped credentials for `GET /v1/turns/{id}/events`, carried
 * in the query string because the browser's `EventSource` cannot send an `Authorization` header
 * (WHATWG HTML §9.2 "Server-sent events": the constructor takes only a URL and `withCredentials`).
 *
 * Format: `<exp>.<sig>` where `exp` is the expiry in whole seconds since the Unix epoch (decimal)
 * and `sig` is base64url(HMAC-SHA256(secret, "turn-events:v1:<turn_id>:<exp>")). The turn id is
 * not in the token: it is bound by the signature and taken from the request path on verification,
 * so a token for one turn never opens another. Signatures are compared with
 * `crypto.timingSafeEqual` (constant time).
 *
 * A stream token is useless for anything else: the auth hook accepts it only for GET of that one
 * turn's events. Long-lived bearer tokens (AUTH_TOKENS) are never accepted in URLs.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { envelope } from './errors.js';

/** Query-string parameter that carries a stream token. */
export const STREAM_TOKEN_PARAM = 'stream_token';

/** Result of {@link StreamTokens.verify}. `reason` is safe to show to clients. */
export type StreamTokenCheck =
  | { ok: true; expiresAt: Date }
  | { ok: false; reason: 'malformed' | 'invalid' | 'expired' };

export interface StreamTokens {
  /** Issue a token for `turnId`, valid for the configured TTL from now. */
  issue(turnId: string): { token: string; expiresAt: Date };
  /** Check `token` for `turnId`: signature first (constant time), then expiry. Never throws. */
  verify(token: string, turnId: string): StreamTokenCheck;
}

export interface StreamTokenOptions {
  /**
   * HMAC key (STREAM_TOKEN_SECRET, at least 16 characters). Unset: 32 random bytes for this
   * process, so tokens stop working after a restart and are not shared across instances.
   */
  secret?: string;
  /** Lifetime of an issued token in seconds (STREAM_TOKEN_TTL_S, default 900 = 15 minutes). */
  ttlSeconds: number;
  /** Clock in epoch milliseconds (tests); default `Date.now`. */
  now?: () => number;
}

const TOKEN_SHAPE = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/** Create an issuer/verifier of stream tokens. */
export function createStreamTokens(options: StreamTokenOptions): StreamTokens {
  const key: Buffer =
    options.secret !== undefined && options.secret !== ''
      ? Buffer.from(options.secret, 'utf8')
      : randomBytes(32);
  const now = options.now ?? Date.now;
  const ttl = options.ttlSeconds;
  if (!Number.isInteger(ttl) || ttl <= 0) throw new RangeError(`stream token TTL must be a positive integer of seconds, got ${ttl}`);

  const sign = (turnId: string, exp: number): Buffer => hmac(key, turnId, exp);

  return {
    issue(turnId) {
      const exp = Math.floor(now() / 1000) + ttl;
      return { token: `${exp}.${sign(turnId, exp).toString('base64url')}`, expiresAt: new Date(exp * 1000) };
    },
    verify(token, turnId) {
      const m = TOKEN_SHAPE.exec(token);
      if (!m) return { ok: false, reason: 'malformed' };
      const exp = Number(m[1]);
      const given = Buffer.from(m[2], 'base64url');
      const expected = sign(turnId, exp);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return { ok: false, reason: 'invalid' };
      }
      if (exp * 1000 <= now()) return { ok: false, reason: 'expired' };
      return { ok: true, expiresAt: new Date(exp * 1000) };
    },
  };
}

/**
 * Sign a token with an explicit expiry (epoch seconds). For tests and tools that must produce a
 * token the server accepts (same secret) or an already expired one; servers use
 * {@link createStreamTokens}.
 */
export function signStreamToken(secret: string, turnId: string, expEpochSeconds: number): string {
  return `${expEpochSeconds}.${hmac(Buffer.from(secret, 'utf8'), turnId, expEpochSeconds).toString('base64url')}`;
}

function hmac(key: Buffer, turnId: string, exp: number): Buffer {
  return createHmac('sha256', key).update(`turn-events:v1:${turnId}:${exp}`).digest();
}

/**
 * The URL with every credential-looking query parameter (`stream_token`, and any name containing
 * token, auth, key, secret, password or sig — a client may have put a credential there by
 * mistake) replaced by `[redacted]`, for logs.
 * `url` is a request target (`/path?query`) or an absolute URL; returns the same form.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  let changed = false;
  for (const name of [...new Set(params.keys())]) {
    if (CREDENTIAL_PARAM.test(name)) {
      params.set(name, '[redacted]');
      changed = true;
    }
  }
  return changed ? `${url.slice(0, q)}?${params.toString()}` : url;
}

const CREDENTIAL_PARAM = /token|auth|key|secret|passw|sig|credential/i;

const EVENTS_PATH = /^\/v1\/turns\/([^/?#]+)\/events$/;

/** The turn id when `method url` is `GET /v1/turns/{id}/events` (any query), else null. */
export function eventsRouteTurnId(method: string, url: string): string | null {
  if (method !== 'GET') return null;
  const q = url.indexOf('?');
  const m = EVENTS_PATH.exec(q === -1 ? url : url.slice(0, q));
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return null;
  }
}

/**
 * `links.events` for a turn: `/v1/turns/{id}/events`, plus `?stream_token=…` when `tokens` is
 * given (i.e. when AUTH_TOKENS is set, so a browser's EventSource can authenticate).
 */
export function turnEventsLink(turnId: string, tokens: StreamTokens | undefined): string {
  const path = `/v1/turns/${encodeURIComponent(turnId)}/events`;
  return tokens ? `${path}?${STREAM_TOKEN_PARAM}=${encodeURIComponent(tokens.issue(turnId).token)}` : path;
}

const accepted = new WeakSet<FastifyRequest>();

/**
 * For the auth hook's `extraCheck`: true when {@link installStreamTokenCheck} accepted this
 * request's stream token (GET of that token's turn's events only).
 */
export function hasValidStreamToken(request: FastifyRequest): boolean {
  return accepted.has(request);
}

/**
 * Add an `onRequest` hook (register it BEFORE the bearer auth hook) that checks a `stream_token`
 * query parameter on `GET /v1/turns/{id}/events` when the request has no Authorization header:
 * valid for that turn → marked for {@link hasValidStreamToken}; expired → 401
 * `stream_token_expired`; anything else → 401 `invalid_stream_token` (both with the error
 * envelope). A stream token anywhere else is ignored (the bearer check then refuses the request),
 * and no other query parameter is ever treated as a credential. Does nothing when `tokens` is
 * undefined (auth off).
 */
export function installStreamTokenCheck(app: FastifyInstance, tokens: StreamTokens | undefined): void {
  if (!tokens) return;
  app.addHook('onRequest', async (request, reply) => {
    if (request.headers.authorization !== undefined) return;
    const turnId = eventsRouteTurnId(request.method, request.url);
    if (turnId === null) return;
    const q = request.url.indexOf('?');
    const token = q === -1 ? null : new URLSearchParams(request.url.slice(q + 1)).get(STREAM_TOKEN_PARAM);
    if (token === null) return;
    const check = tokens.verify(token, turnId);
    if (check.ok) {
      accepted.add(request);
      return;
    }
    const body =
      check.reason === 'expired'
        ? envelope('stream_token_expired', 'stream token expired: fetch the turn again (GET /v1/turns/{id}) for a fresh links.events')
        : envelope('invalid_stream_token', 'stream token is not valid for this turn');
    return reply.code(401).header('WWW-Authenticate', 'Bearer').send(body);
  });
}
