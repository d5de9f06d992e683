/**
 * Cross-origin access for browser clients, through `@fastify/cors`.
 *
 * Rules (Fetch standard §3.2 "CORS protocol"; README.md "Configuration", CORS_ORIGINS):
 * - Only origins listed in CORS_ORIGINS (exact `scheme://host[:port]`, compared after URL
 *   normalisation) get CORS headers; any other origin gets none, so the browser blocks it. The
 *   request's Origin is echoed only when it is on the list — arbitrary origins are never reflected.
 * - Unset CORS_ORIGINS: no cross-origin access at all.
 * - Preflight allows JSON POSTs with `Authorization` and `Idempotency-Key`, and `Last-Event-ID`
 *   (sent by EventSource when it reconnects).
 * - A preflight's `Access-Control-Allow-Methods` lists the methods the path takes (its `Allow`,
 *   src/http/route-registry.ts; all of {@link CORS_METHODS} for a path with no route, whose request
 *   then gets the 404 saying so), and the answer carries `Allow` with the same list. A preflight for
 *   another method still gets 204 — a preflight answer must have an ok status, and a 405 would read
 *   as "OPTIONS is not allowed" — but the browser then refuses the request itself and says why
 *   ("Method DELETE is not allowed by Access-Control-Allow-Methods in preflight response"; Fetch
 *   standard §4.8 "CORS-preflight fetch", step 7: a method that is not in the list and not
 *   CORS-safelisted is a network error). A GET, HEAD or POST (CORS-safelisted) passes that check
 *   whatever the list says and reaches the route, whose 405 `method_not_allowed` the page can read. Headers are set in `onRequest`, so SSE responses
 *   (whose head `@fastify/sse` writes itself, copying `reply.getHeaders()`) carry them too.
 * - Responses to an allowed origin expose the response headers the API documents
 *   ({@link CORS_EXPOSED_HEADERS}, `Access-Control-Expose-Headers`): without it a page's script
 *   reads only the CORS-safelisted ones (Content-Type, Content-Length, Cache-Control, …), not
 *   `Location` or `Idempotent-Replayed`. Like the other CORS headers it is set in `onRequest`, so
 *   error and SSE responses carry it too.
 * - No credentials mode (`Access-Control-Allow-Credentials` is never sent): auth is a bearer
 *   header or a stream token in the URL, never a cookie.
 *
 * Register this plugin before the auth hook so a preflight (which carries no Authorization) is
 * answered before auth runs.
 */
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { ConfigError, corsOriginProblem } from '../config.js';
import { allowedMethods } from './route-registry.js';

/** Request headers a cross-origin page may send. */
export const CORS_ALLOWED_HEADERS = ['Content-Type', 'Authorization', 'Idempotency-Key', 'Last-Event-ID', 'Accept', 'traceparent', 'tracestate'];
/**
 * Response headers a cross-origin page's script may read (README "Browser clients"): `Location`
 * (201/202 creates, the SSE answer of POST /v1/turns), `X-Turn-Id` (that SSE answer, and the 503
 * `shutting_down` of `?wait=true`), `Retry-After` (that 503), `Idempotent-Replayed` (an
 * Idempotency-Key replay), `Content-Disposition` (attachment downloads: the file name), `Allow`
 * (405) and `WWW-Authenticate` (401). Every header openapi.yaml documents on a response is here.
 */
export const CORS_EXPOSED_HEADERS = ['Location', 'X-Turn-Id', 'Retry-After', 'Idempotent-Replayed', 'Content-Disposition', 'Allow', 'WWW-Authenticate'];
/** Methods the API uses (PUT: brain pages; PATCH/DELETE: schedules, brain pages). */
export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Normalise configured origins to `URL.origin` form (`https://app.example.com`,
 * `http://127.0.0.1:5173`).
 * @throws ConfigError naming CORS_ORIGINS when an entry is not a bare http(s) origin
 *   ({@link corsOriginProblem}: `*`, paths, query strings and other schemes are refused); the
 *   start-up report names them already (src/config.ts), this guards other callers.
 */
export function parseCorsOrigins(entries: readonly string[]): Set<string> {
  const out = new Set<string>();
  const problems: string[] = [];
  for (const entry of entries) {
    const problem = corsOriginProblem(entry);
    if (problem) problems.push(`CORS_ORIGINS: ${problem}`);
    else out.add(new URL(entry).origin);
  }
  if (problems.length) throw new ConfigError(problems);
  return out;
}

/** True when `origin` (a request's Origin header) is one of `allowed` (from {@link parseCorsOrigins}). */
export function isAllowedOrigin(allowed: ReadonlySet<string>, origin: string | undefined): boolean {
  if (!origin || origin === 'null') return false;
  try {
    return allowed.has(new URL(origin).origin);
  } catch {
    return false;
  }
}

/**
 * Register `@fastify/cors` on `app` for `origins` (CORS_ORIGINS entries). With an empty list the
 * plugin is still registered (so behaviour is uniform) but answers no origin. A preflight's
 * allowed methods are the path's own (module comment); `app` must record its routes
 * (`recordRoutes`) for that, else every path gets {@link CORS_METHODS}.
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  const allowed = parseCorsOrigins(origins);
  const base: FastifyCorsOptions = {
    origin: (origin, cb) => cb(null, isAllowedOrigin(allowed, origin) ? (origin as string) : false),
    methods: CORS_METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
    credentials: false,
    strictPreflight: true,
  };
  /** The path's methods the delegator looked up for a preflight, for its `Allow` header (not looked up twice). */
  const preflightMethods = new WeakMap<object, string[]>();
  await app.register(cors, {
    delegator: (request, cb) => {
      if (request.method !== 'OPTIONS') return cb(null, base);
      const methods = allowedMethods(app, request.url.split('?')[0]);
      preflightMethods.set(request, methods);
      cb(null, methods.length > 0 ? { ...base, methods } : base);
    },
  });
  // The path's methods as `Allow` on a preflight answer too (RFC 9110 §10.2.1), for a person reading it.
  app.addHook('onSend', async (request, reply) => {
    // @fastify/cors marks a preflight it answered (a request decoration its types leave out).
    if ((request as { corsPreflightEnabled?: boolean }).corsPreflightEnabled) {
      const methods = preflightMethods.get(request) ?? allowedMethods(app, request.url.split('?')[0]);
      if (methods.length > 0) reply.header('Allow', methods.join(', '));
    }
  });
}
