/**
 * One log line per request, at `debug` (Fastify's own pair of `incoming request` / `request
 * completed` lines at `info` is turned off in src/app.ts): method, URL (tokens masked by the
 * logger's `req` serializer), status and response time in ms. Errors are still logged at their
 * own level by the error handler, and turn lifecycle lines stay at `info`.
 */
import type { FastifyInstance } from 'fastify';

export function installRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    request.log.debug({ req: request, res: { statusCode: reply.statusCode }, responseTime: Math.round(reply.elapsedTime * 10) / 10 }, 'request completed');
  });
}
