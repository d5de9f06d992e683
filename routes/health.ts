/**
 * GET /healthz — the process is up (always 200 while it serves HTTP).
 * GET /readyz — ready for traffic: the database answers. 200 `{status:'ready', checks}` or 503
 * with the envelope (`not_ready`). `checks.model` says whether a model endpoint is configured.
 * Both answer without a token (src/http/auth.ts).
 */
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { HttpError } from '../src/http/errors.js';

export const healthRoutes: RoutePlugin = async (app, { services }) => {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async () => {
    try {
      services.db.prepare('SELECT 1').get();
    } catch (err) {
      throw new HttpError(503, 'not_ready', `database unavailable: ${(err as Error).message}`);
    }
    return {
      status: 'ready',
      checks: {
        database: 'ok',
        model: services.modelClient ? 'configured' : 'not_configured',
      },
      turns: services.turns.stats(),
    };
  });
};
