/**
 * GET /metrics — Prometheus text exposition format (src/telemetry/metrics.ts lists the metrics).
 * Access: with AUTH_TOKENS set, any API token; with METRICS_TOKEN set, that token too (a scraper
 * can get a token that opens nothing else). With neither set it is open, like the rest of the
 * API on loopback. Refusals are the usual 401 envelope.
 */
import type { FastifyRequest } from 'fastify';
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { tokenMatches, unauthorizedDetails } from '../src/http/auth.js';
import { envelope } from '../src/http/errors.js';

export const METRICS_PATH = '/metrics';

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
      if (!METRICS_TOKEN || AUTH_TOKENS.length > 0 || hasMetricsToken(request, METRICS_TOKEN)) return;
      const { reason } = unauthorizedDetails(request.headers.authorization ?? '');
      return reply
        .code(401)
        .header('WWW-Authenticate', 'Bearer')
        .send(envelope('unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>', { reason, expected: 'Authorization: Bearer <METRICS_TOKEN>' }));
    },
  }, async (_request, reply) => {
    const { contentType, body } = await services.metrics.scrape();
    return reply.type(contentType).send(body);
  });
};
