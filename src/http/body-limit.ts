/**
 * Request body limits and the 413 `body_too_large` that names them. Every route takes a body of at
 * most BODY_LIMIT_BYTES (the app's `bodyLimit`) unless it declares its own limit: the route option
 * `bodyLimit` (the bytes) together with `config.ownBodyLimit` (what its 413 says of that limit:
 * where it comes from, what to send instead). Declare a route's own limit that way, never as a
 * content-type parser's `bodyLimit`: a parser's limit is invisible to the request, so its 413
 * would name BODY_LIMIT_BYTES instead of the limit that refused the body.
 */
import type { FastifyRequest } from 'fastify';
import { envelope, type ErrorEnvelope } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How the 413 of a route with its own `bodyLimit` names that limit ({@link OwnBodyLimit}). */
    ownBodyLimit?: OwnBodyLimit;
  }
}

/** What a 413 says of a route's own body limit (one the route sets with its `bodyLimit` option). */
export interface OwnBodyLimit {
  /** A short name of the limit, the 413's `details.source` (e.g. `skill_archive`). */
  source: string;
  /** What the limit is and where it comes from, put in parentheses after the byte count. */
  description: string;
  /** What to send instead, the end of the message. */
  advice: string;
}

/** The limit a request's body was held to: its bytes and how the 413 names it. */
export interface BodyLimit extends OwnBodyLimit {
  bytes: number;
}

/** The app-wide limit, BODY_LIMIT_BYTES (`source` and `description` name the setting). */
export function serverBodyLimit(bytes: number): BodyLimit {
  return { bytes, source: 'BODY_LIMIT_BYTES', description: 'BODY_LIMIT_BYTES', advice: 'send a smaller one' };
}

/**
 * The body limit of the route `request` matched: its own (`bodyLimit` route option and
 * `config.ownBodyLimit`), else BODY_LIMIT_BYTES. A route with a `bodyLimit` of its own but no
 * `ownBodyLimit` is named by its method and URL (`source` `route`).
 */
export function bodyLimitOf(request: FastifyRequest): BodyLimit {
  const server = request.server.initialConfig.bodyLimit ?? 1024 * 1024;
  const { bodyLimit, config, method, url } = request.routeOptions;
  const bytes = bodyLimit ?? server;
  if (config?.ownBodyLimit) return { bytes, ...config.ownBodyLimit };
  if (bytes === server) return serverBodyLimit(bytes);
  return { bytes, source: 'route', description: `the limit of ${method} ${url}`, advice: 'send a smaller one' };
}

/**
 * The 413 `body_too_large` envelope for a body over `limit` (the body parser's answer, and that of
 * `Expect: 100-continue`): message `the request body is larger than <bytes> bytes (<description>);
 * <advice>` — `(BODY_LIMIT_BYTES); send a smaller one` on most routes — and details
 * `{limit_bytes, source}` (`source` `BODY_LIMIT_BYTES`, or the route's own limit, e.g. `skill_archive`).
 */
export function bodyTooLarge(limit: BodyLimit): ErrorEnvelope {
  return envelope('body_too_large', `the request body is larger than ${limit.bytes} bytes (${limit.description}); ${limit.advice}`, {
    limit_bytes: limit.bytes,
    source: limit.source,
  });
}
