/**
 * HTTP server spans through Fastify's official OpenTelemetry instrumentation (`@fastify/otel`):
 * one SERVER span per request, named `<METHOD> <route>` (e.g. `POST /v1/turns`), child of the
 * caller's `traceparent`, with a `handler` child span; lifecycle-hook spans are off (noise).
 * `url.path` holds the path and `url.query` the query string (semantic conventions), its
 * token-like parameters masked like the logs' (src/telemetry/tracing.ts masks every span's URL
 * attributes). Health probes and /metrics scrapes are not traced. Registered by src/app.ts before the routes,
 * only when tracing is on.
 */
import { FastifyOtelInstrumentation } from '@fastify/otel';
import type { FastifyPluginCallback } from 'fastify';
import { redactQuery } from '../http/stream-token.js';
import type { Tracing } from './tracing.js';

const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

export function httpSpansPlugin(tracing: Tracing): FastifyPluginCallback {
  const instrumentation = new FastifyOtelInstrumentation({
    instrumentHooks: false,
    ignorePaths: (opts: { url: string }) => UNTRACED.has(opts.url.split('?')[0]),
    requestHook: (span, request) => {
      const q = request.url.indexOf('?');
      const urlPath = q === -1 ? request.url : request.url.slice(0, q);
      span.updateName(`${request.method} ${request.routeOptions.url ?? urlPath}`);
      span.setAttribute('url.path', urlPath);
      if (q !== -1) span.setAttribute('url.query', redactQuery(request.url.slice(q + 1)));
    },
  });
  instrumentation.setTracerProvider(tracing.provider);
  return instrumentation.plugin() as unknown as FastifyPluginCallback;
}
