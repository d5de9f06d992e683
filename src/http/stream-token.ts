/**
 * Stream tokens: short-lived, stream-scoped credentials for `GET /v1/turns/{id}/events` and
 * `GET /v1/workflows/{id}/events`, carried in the query string because the browser's `EventSource` cannot send an `Authorization` header
 * (WHATWG HTML §9.2 "Server-sent events": the constructor takes only a URL and `withCredentials`).
 *
 * Format: `<exp>.<sig>` where `exp` is the expiry in whole seconds since the Unix epoch (decimal)
 * and `sig` is base64url(HMAC-SHA256(secret, "<kind>-events:v1:<id>:<exp>")) with `kind` `turn`
 * or `workflow` (see {@link StreamKind}). Neither kind nor id is in the token: both are bound by
 * the signature and taken from the request path on verification, so a token for one turn never
 * opens another turn, and a turn token never opens a workflow stream (nor the reverse).
 * Signatures are compared with `crypto.timingSafeEqual` (constant time).
 *
 * A stream token is useless for anything else: the auth hook accepts it only for GET of that one
 * stream's events. Long-lived bearer tokens (AUTH_TOKENS) are never accepted in URLs.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { envelope } from './errors.js';
import { CREDENTIAL_PARAM } from '../url-credentials.js';

/** Query-string parameter that carries a stream token. */
export const STREAM_TOKEN_PARAM = 'stream_token';

/**
 * The event streams a token can open: `turn` → `GET /v1/turns/{id}/events`, `workflow` →
 * `GET /v1/workflows/{id}/events`, `job` → `GET /v1/jobs/{id}/events`. Part of the signed
 * message, so a token is bound to one kind.
 */
export type StreamKind = 'turn' | 'workflow' | 'job';

/** Path prefix (under `/v1/`) of each stream kind's resources. */
const KIND_PATH: Record<StreamKind, string> = { turn: 'turns', workflow: 'workflows', job: 'jobs' };
const KIND_OF_PATH: Record<string, StreamKind> = { turns: 'turn', workflows: 'workflow', jobs: 'job' };

/** Result of {@link StreamTokens.verify}. `reason` is safe to show to clients. */
export type StreamTokenCheck =
  | { ok: true; expiresAt: Date }
  | { ok: false; reason: 'malformed' | 'invalid' | 'expired' };

export interface StreamTokens {
  /** Issue a token for the `kind` stream of `id` (default a turn), valid for the configured TTL from now. */
  issue(id: string, kind?: StreamKind): { token: string; expiresAt: Date };
  /**
   * Check `token` for the `kind` stream of `id` (default a turn): signature first (constant
   * time), then expiry. Never throws.
   */
  verify(token: string, id: string, kind?: StreamKind): StreamTokenCheck;
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

  return {
    issue(id, kind = 'turn') {
      const exp = Math.floor(now() / 1000) + ttl;
      return { token: `${exp}.${hmac(key, kind, id, exp).toString('base64url')}`, expiresAt: new Date(exp * 1000) };
    },
    verify(token, id, kind = 'turn') {
      const m = TOKEN_SHAPE.exec(token);
      if (!m) return { ok: false, reason: 'malformed' };
      const exp = Number(m[1]);
      const given = Buffer.from(m[2], 'base64url');
      const expected = hmac(key, kind, id, exp);
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
export function signStreamToken(secret: string, id: string, expEpochSeconds: number, kind: StreamKind = 'turn'): string {
  return `${expEpochSeconds}.${hmac(Buffer.from(secret, 'utf8'), kind, id, expEpochSeconds).toString('base64url')}`;
}

function hmac(key: Buffer, kind: StreamKind, id: string, exp: number): Buffer {
  return createHmac('sha256', key).update(`${kind}-events:v1:${id}:${exp}`).digest();
}

/**
 * The URL with every credential-looking query parameter (`stream_token`, and any name containing
 * token, auth, key, secret, password or sig — a client may have put a credential there by
 * mistake) replaced by `[redacted]`, for logs and trace spans (src/telemetry/tracing.ts).
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
  // URLSearchParams writes the brackets percent-encoded; the marker reads as written.
  return changed ? `${url.slice(0, q)}?${params.toString().replaceAll('%5Bredacted%5D', '[redacted]')}` : url;
}


/**
 * A query string (without `?`, as the `url.query` span attribute holds it) with the parameters
 * {@link redactUrl} masks replaced by `[redacted]`.
 */
export function redactQuery(query: string): string {
  return redactUrl(`?${query}`).slice(1);
}

/**
 * The routes a stream token opens, each only for the id it was issued for ({@link eventsRouteStream}
 * matches them), as 401s elsewhere name them: the three event streams, and a turn's attachments
 * with that turn's token.
 */
export const STREAM_TOKEN_ROUTES = ['GET /v1/turns/{id}/events', 'GET /v1/workflows/{id}/events', 'GET /v1/jobs/{id}/events', 'GET /v1/turns/{id}/attachments/{attachment_id}'] as const;

const EVENTS_PATH = /^\/v1\/(turns|workflows|jobs)\/([^/?#]+)\/events$/;
/** A turn's reply attachments: a turn's stream token also opens them (browser downloads). */
const TURN_ATTACHMENT_PATH = /^\/v1\/(turns)\/([^/?#]+)\/attachments\/[^/?#]+$/;

/**
 * The stream when `method url` is `GET /v1/turns/{id}/events` or `GET /v1/workflows/{id}/events`
 * (any query), or `GET /v1/turns/{id}/attachments/{attachment_id}` (covered by that turn's token,
 * so a browser link can download a reply attachment), else null.
 */
export function eventsRouteStream(method: string, url: string): { kind: StreamKind; id: string } | null {
  if (method !== 'GET') return null;
  const q = url.indexOf('?');
  const p = q === -1 ? url : url.slice(0, q);
  const m = EVENTS_PATH.exec(p) ?? TURN_ATTACHMENT_PATH.exec(p);
  if (!m) return null;
  try {
    return { kind: KIND_OF_PATH[m[1]], id: decodeURIComponent(m[2]) };
  } catch {
    return null;
  }
}

/**
 * `links.events` of the `kind` stream of `id`: `/v1/{turns|workflows}/{id}/events`, plus
 * `?stream_token=…` when `tokens` is given (i.e. when AUTH_TOKENS is set, so a browser's
 * EventSource can authenticate).
 */
export function eventsLink(kind: StreamKind, id: string, tokens: StreamTokens | undefined): string {
  const path = `/v1/${KIND_PATH[kind]}/${encodeURIComponent(id)}/events`;
  return tokens ? `${path}?${STREAM_TOKEN_PARAM}=${encodeURIComponent(tokens.issue(id, kind).token)}` : path;
}

/** {@link eventsLink} of a turn. */
export function turnEventsLink(turnId: string, tokens: StreamTokens | undefined): string {
  return eventsLink('turn', turnId, tokens);
}

/** {@link eventsLink} of a workflow. */
export function workflowEventsLink(workflowId: string, tokens: StreamTokens | undefined): string {
  return eventsLink('workflow', workflowId, tokens);
}

/** {@link eventsLink} of a background job. */
export function jobEventsLink(jobId: string, tokens: StreamTokens | undefined): string {
  return eventsLink('job', jobId, tokens);
}

const accepted = new WeakSet<FastifyRequest>();

/**
 * For the auth hook's `extraCheck`: true when {@link installStreamTokenCheck} accepted this
 * request's stream token (GET of that token's own stream's events only).
 */
export function hasValidStreamToken(request: FastifyRequest): boolean {
  return accepted.has(request);
}

/**
 * Add an `onRequest` hook (register it BEFORE the bearer auth hook) that checks a `stream_token`
 * query parameter on `GET /v1/turns/{id}/events` and `GET /v1/workflows/{id}/events` when the
 * request has no Authorization header: valid for that kind of stream and that id → marked for {@link hasValidStreamToken}; expired → 401
 * `stream_token_expired`; anything else → 401 `invalid_stream_token` (both with the error
 * envelope, details `{stream: "turn"|"workflow"|"job", id, refresh}`, `refresh` being the path to
 * GET, with a bearer token, for a fresh `links.events`). A stream token anywhere else is ignored here (the bearer check then refuses the request, saying
 * where stream tokens are accepted: src/http/auth.ts),
 * and no other query parameter is ever treated as a credential. Does nothing when `tokens` is
 * undefined (auth off).
 */
export function installStreamTokenCheck(app: FastifyInstance, tokens: StreamTokens | undefined): void {
  if (!tokens) return;
  app.addHook('onRequest', async (request, reply) => {
    if (request.headers.authorization !== undefined) return;
    const stream = eventsRouteStream(request.method, request.url);
    if (stream === null) return;
    const q = request.url.indexOf('?');
    const token = q === -1 ? null : new URLSearchParams(request.url.slice(q + 1)).get(STREAM_TOKEN_PARAM);
    if (token === null) return;
    const check = tokens.verify(token, stream.id, stream.kind);
    if (check.ok) {
      accepted.add(request);
      return;
    }
    // Where a fresh token comes from: the record's links.events (with a bearer token).
    const details = { stream: stream.kind, id: stream.id, refresh: `/v1/${KIND_PATH[stream.kind]}/${encodeURIComponent(stream.id)}` };
    const body =
      check.reason === 'expired'
        ? envelope(
            'stream_token_expired',
            `stream token expired: fetch the ${stream.kind} again (GET /v1/${KIND_PATH[stream.kind]}/{id}) for a fresh links.events`,
            details,
          )
        : envelope('invalid_stream_token', `stream token is not valid for this ${stream.kind}'s events: fetch the ${stream.kind} (GET /v1/${KIND_PATH[stream.kind]}/{id}) for its links.events`, details);
    return reply.code(401).header('WWW-Authenticate', 'Bearer').send(body);
  });
}
