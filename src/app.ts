/**
 * buildApp: the Fastify 5 instance with the error envelope, bearer auth, SSE support and every
 * route plugin. Routes are registered from {@link ROUTE_PLUGINS}, a visible list: a new area
 * (schedules, workflows, brain, console…) adds one line there. Every plugin receives
 * `{ services }` as its options.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import fastifySseModule from '@fastify/sse';
import { installAuth } from './http/auth.js';
import { installHostCheck, installHostRequired } from './http/host-check.js';
import { registerCors } from './http/cors.js';
import { installOriginCheck } from './http/origin-check.js';
import { hasValidStreamToken, installStreamTokenCheck } from './http/stream-token.js';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandlers, MAX_PARAM_LENGTH } from './http/error-handler.js';
import { installBodyTimeout } from './http/body-timeout.js';
import { installExpectContinue } from './http/expect-continue.js';
import { installJsonBodyParser } from './http/json-body.js';
import { installQueryGuard } from './http/query-guard.js';
import { recordRoutes } from './http/route-registry.js';
import { installRequestLog } from './http/request-log.js';
import type { Services } from './services.js';
import type { RoutePlugin } from './http/route-plugin.js';
import { httpSpansPlugin } from './telemetry/http-spans.js';
import { healthRoutes } from '../routes/health.js';
import { openapiRoutes } from '../routes/openapi.js';
import { turnRoutes } from '../routes/turns.js';
import { turnApprovalRoutes } from '../routes/turn-approvals.js';
import { turnMessageRoutes } from '../routes/turn-messages.js';
import { toolRoutes } from '../routes/tools.js';
import { scheduleRoutes } from '../routes/schedules.js';
import { workflowRoutes } from '../routes/workflows.js';
import { brainRoutes } from '../routes/brain.js';
import { consoleRoutes } from '../routes/console.js';
import { skillRoutes } from '../routes/skills.js';
import { agentRoutes } from '../routes/agents.js';
import { hasMetricsToken, METRICS_PATH, metricsRoutes, metricsWithApiTokens } from '../routes/metrics.js';
import { attachmentRoutes } from '../routes/attachments.js';
import { webhookRoutes } from '../routes/webhooks.js';
import { jobRoutes } from '../routes/jobs.js';

/** The fastify-plugin-wrapped export (its types name only the unwrapped function). */
const fastifySse = fastifySseModule as unknown as FastifyPluginAsync<{ heartbeatInterval?: number }>;


/** Route plugins, in registration order. Add yours with one line. */
export const ROUTE_PLUGINS: RoutePlugin[] = [
  healthRoutes,
  openapiRoutes,
  turnRoutes,
  turnApprovalRoutes,
  turnMessageRoutes,
  toolRoutes,
  consoleRoutes,
  scheduleRoutes,
  workflowRoutes,
  jobRoutes,
  brainRoutes,
  skillRoutes,
  agentRoutes,
  metricsRoutes,
  attachmentRoutes,
  webhookRoutes,
];

/** Every route the app registered (method + URL as declared, e.g. `/v1/turns/:id`). */
export { registeredRoutes, type RegisteredRoute } from './http/route-registry.js';

/**
 * Build (not start) the HTTP app. The caller owns `services` (start/stop) and `listen`.
 * Body limit: BODY_LIMIT_BYTES, or a route's own (src/http/body-limit.ts; 413 beyond); a request must arrive within REQUEST_TIMEOUT_MS
 * (408 after). Only `application/json` bodies in UTF-8 are accepted
 * (415 else), nested at most 64 levels (400 beyond; src/http/json-body.ts).
 */
export async function buildApp(services: Services): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    loggerInstance: services.log as FastifyBaseLogger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    // A request (headers and body) must arrive within REQUEST_TIMEOUT_MS, else 408 and the
    // connection is closed: a client that opens connections and sends nothing, or a byte now and
    // then (slowloris), holds none for long. Fastify's default is no limit. Node checks pending
    // requests every connectionsCheckingInterval (its default 30 s); a quarter of the timeout
    // keeps the cut close to it. Responses (SSE streams) are not limited by it.
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    // Node's own Host check answers an empty 400; installHostRequired answers with the envelope.
    http: { connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(config.REQUEST_TIMEOUT_MS / 4))), requireHostHeader: false },
    genReqId: () => crypto.randomUUID(),
    // `/v1/turns/` is `/v1/turns` (a trailing slash read as an empty id gave 400), `//` is `/`.
    // A path parameter up to the longest id or name the API documents (a page slug, 128); 414 beyond.
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: MAX_PARAM_LENGTH },
    // Request lines go to debug (src/http/request-log.ts), not Fastify's info pair.
    logController: new LogController({ disableRequestLogging: true }),
    // Open SSE streams (e.g. of a queued turn) must not keep close() waiting: they are cut and
    // clients resume with Last-Event-ID after the restart.
    forceCloseConnections: true,
    // Every non-2xx carries the {error:{code,message}} envelope, also those Fastify/Node produce.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  });
  // HTTP server spans (only when tracing is on); before every hook and route so all are covered.
  if (services.tracing) await app.register(httpSpansPlugin(services.tracing));
  app.removeContentTypeParser('text/plain');
  // An HTTP/1.1 request without Host: 400 missing_host, before every other hook.
  installHostRequired(app);
  installJsonBodyParser(app);
  installBodyTimeout(app, config.REQUEST_TIMEOUT_MS);
  installExpectContinue(app);
  installErrorHandlers(app);
  installQueryGuard(app);
  installRequestLog(app);
  await app.register(fastifySse, { heartbeatInterval: config.SSE_HEARTBEAT_MS });
  // Without tokens, refuse requests addressed to a non-loopback name (DNS rebinding), before anything else.
  installHostCheck(app, { tokens: config.AUTH_TOKENS, allowedHosts: config.ALLOWED_HOSTS });
  // CORS first: a preflight carries no Authorization and is answered before auth runs.
  await registerCors(app, config.CORS_ORIGINS);
  // A state-changing request from a page on a foreign origin (no preflight needed for a bodyless
  // or text/plain POST): 403 origin_not_allowed, with or without tokens, before auth.
  installOriginCheck(app, config.CORS_ORIGINS, config.AUTH_TOKENS.length > 0);
  // Stream tokens (EventSource) are checked before bearer auth, for GET /v1/{turns,workflows}/{id}/events only.
  installStreamTokenCheck(app, services.streamTokens);
  const metricsExpectation = metricsWithApiTokens(config.METRICS_TOKEN !== undefined);
  installAuth(app, {
    tokens: config.AUTH_TOKENS,
    extraCheck: (r) => hasValidStreamToken(r) || hasMetricsToken(r, config.METRICS_TOKEN),
    expectationFor: (r) => (r.url.split('?')[0] === METRICS_PATH ? metricsExpectation : undefined),
  });
  recordRoutes(app);
  for (const plugin of ROUTE_PLUGINS) await app.register(plugin, { services });
  return app;
}
