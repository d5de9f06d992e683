/**
 * GET /healthz — the process is up (always 200 while it serves HTTP).
 * GET /readyz — ready for traffic: every database answers, a model endpoint is configured and it
 * is reachable (a cached probe, src/telemetry/model-probe.ts). 200 `{status:'ready', checks, turns}`
 * with `checks.database: 'ok'`, or 503 with the envelope (`database_unavailable`, details
 * `{checks: {database: 'unavailable', …}}`; `model_not_configured` — the message says which
 * variables to set, `details.checks.model: 'not_configured'` — when no endpoint is configured, as
 * POST /v1/turns answers then: such a service cannot run any turn, so a load balancer must not send
 * it traffic; `not_ready` with a message naming the model endpoint and the cause). `checks.model`
 * is `reachable` or `configured` (an injected client, not probed) on a 200; `checks.engine` which
 * engine holds the data; on Postgres `checks.listen` says whether the LISTEN connection for cross-instance wake-ups is up (`ok`) or being re-opened
 * (`reconnecting`: live streams fall back to polling, still ready).
 * Both answer without a token (src/http/auth.ts).
 */
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { HttpError } from '../src/http/errors.js';
import { MODEL_NOT_CONFIGURED, MODEL_ENDPOINT_SETTINGS } from '../src/model/require-model.js';

export const healthRoutes: RoutePlugin = async (app, { services }) => {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async () => {
    const model = services.modelClient ? 'configured' : 'not_configured';
    const engine = services.stores.engine;
    const listen = services.engine.listen();
    try {
      services.db.prepare('SELECT 1').get();
      await services.stores.ping();
    } catch (err) {
      throw new HttpError(503, 'database_unavailable', `database unavailable: ${(err as Error).message}`, {
        checks: { database: 'unavailable', engine, model, ...(listen ? { listen } : {}) },
      });
    }
    if (!services.modelClient) {
      throw new HttpError(503, 'model_not_configured', MODEL_NOT_CONFIGURED, { checks: { database: 'ok', engine, model, ...(listen ? { listen } : {}) }, settings: [...MODEL_ENDPOINT_SETTINGS] });
    }
    const probe = services.modelProbe ? await services.modelProbe.check() : undefined;
    if (probe && !probe.reachable) throw new HttpError(503, 'not_ready', probe.reason, { checks: { database: 'ok', engine, model: probe.check, ...(listen ? { listen } : {}) } });
    return {
      status: 'ready',
      checks: { database: 'ok', engine, model: probe ? 'reachable' : model, ...(listen ? { listen } : {}) },
      turns: await services.turns.stats(),
    };
  });
};
