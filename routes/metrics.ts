/**
 * GET /metrics — Prometheus text exposition format (src/telemetry/metrics.ts lists the metrics).
 * Access: with AUTH_TOKENS set, any API token; with METRICS_TOKEN set, that token too (a scraper
 * can get a token that opens nothing else). With neither set it is open, like the rest of the
 * API on loopback. Refusals are the usual 401 envelope; its message names METRICS_TOKEN and how a
 * scraper sends a token ({@link METRICS_TOKEN_ONLY} when METRICS_TOKEN alone guards it,
 * {@link metricsWithApiTokens} with AUTH_TOKENS), and more than
 * one Authorization header is 400 `invalid_request` (`duplicate_header`), as on every guarded route.
 */
import type { FastifyRequest } from 'fastify';
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { duplicateAuthorization, tokenMatches, unauthorizedEnvelope, type BearerExpectation } from '../src/http/auth.js';

export const METRICS_PATH = '/metrics';

/**
 * What GET /metrics's 401 asks for when METRICS_TOKEN alone guards it (no AUTH_TOKENS): that token,
 * as a bearer token — Prometheus sends one with `authorization: {credentials: …}` in its scrape
 * config. Details `expected` is `Authorization: Bearer <METRICS_TOKEN>`.
 */
export const METRICS_TOKEN_ONLY: BearerExpectation = {
  token: '<METRICS_TOKEN>',
  invalid: 'invalid bearer token: it is not METRICS_TOKEN; GET /metrics needs Authorization: Bearer <METRICS_TOKEN>',
  missing: 'missing bearer token: GET /metrics needs Authorization: Bearer <METRICS_TOKEN> (in a Prometheus scrape config: authorization: {credentials: <METRICS_TOKEN>})',
  streamTokens: false,
};

/**
 * What GET /metrics's 401 asks for when AUTH_TOKENS guards the API: with METRICS_TOKEN set, that
 * token (or an API token) and how a Prometheus scrape config sends it; without it, an API token,
 * the scrape config, and that METRICS_TOKEN gives a token that opens /metrics alone. Stream-token
 * refusals keep the API's wording.
 */
export function metricsWithApiTokens(metricsToken: boolean): BearerExpectation {
  return metricsToken
    ? {
        token: '<METRICS_TOKEN>',
        invalid: 'invalid bearer token: it is neither METRICS_TOKEN nor one of AUTH_TOKENS; GET /metrics needs Authorization: Bearer <METRICS_TOKEN> (or one of AUTH_TOKENS)',
        missing: 'missing bearer token: GET /metrics needs Authorization: Bearer <METRICS_TOKEN> (or one of AUTH_TOKENS; in a Prometheus scrape config: authorization: {credentials: <METRICS_TOKEN>})',
        streamTokens: true,
      }
    : {
        token: '<token>',
        invalid: 'invalid bearer token: it is none of the tokens in AUTH_TOKENS; GET /metrics needs Authorization: Bearer <one of AUTH_TOKENS> (set METRICS_TOKEN for a token that opens only /metrics)',
        missing: 'missing bearer token: GET /metrics needs Authorization: Bearer <one of AUTH_TOKENS> (in a Prometheus scrape config: authorization: {credentials: <token>}; set METRICS_TOKEN for a token that opens only /metrics)',
        streamTokens: true,
      };
}

/** True when the request carries `Authorization: Bearer <METRICS_TOKEN>` for GET /metrics. */
export function hasMetricsToken(request: FastifyRequest, metricsToken: string | undefined): boolean {
  if (!metricsToken || request.url.split('?')[0] !== METRICS_PATH) return false;
  const m = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '');
  return m !== null && tokenMatches(m[1].trim(), [metricsToken]);
}

export const metricsRoutes: RoutePlugin = async (app, { services }) => {
  const { METRICS_TOKEN, AUTH_TOKENS } = services.config;
  app.get(METRICS_PATH, {
    // Without AUTH_TOKENS the global auth hook lets everything through; METRICS_TOKEN still guards this route.
    onRequest: async (request, reply) => {
      if (!METRICS_TOKEN || AUTH_TOKENS.length > 0) return;
      const twice = duplicateAuthorization(request, METRICS_TOKEN_ONLY);
      if (twice) return reply.code(400).send(twice);
      if (hasMetricsToken(request, METRICS_TOKEN)) return;
      return reply.code(401).header('WWW-Authenticate', 'Bearer').send(unauthorizedEnvelope(request.headers.authorization, request.url, METRICS_TOKEN_ONLY));
    },
  }, async (_request, reply) => {
    const { contentType, body } = await services.metrics.scrape();
    return reply.type(contentType).send(body);
  });
};
