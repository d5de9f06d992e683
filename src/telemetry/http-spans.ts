/**
 * HTTP server spans through Fastify's official OpenTelemetry instrumentation (`@fastify/otel`):
 * one SERVER span per request, named `<METHOD> <route>` (e.g. `POST /v1/turns`), child of the
 * caller's `traceparent`, with a `handler` child span; lifecycle-hook spans are off (noise).
 * Health probes and /metrics scrapes are not traced. Registered by src/app.ts before the routes,
 * only when tracing is on.
 */
import { FastifyOtelInstrumentation } from '@fastify/otel';
import type { FastifyPluginCallback } from 'fastify';
import type { Tracing } from './tracing.js';

const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

export function httpSpansPlugin(tracing: Tracing): FastifyPluginCallback {
  const instrumentation = new FastifyOtelInstrumentation({
    instrumentHooks: false,
    ignorePaths: (opts: { url: string }) => UNTRACED.has(opts.url.split('?')[0]),
    requestHook: (span, request) => {
      span.updateName(`${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`);
    },
  });
  instrumentation.setTracerProvider(tracing.provider);
  return instrumentation.plugin() as unknown as FastifyPluginCallback;
}
