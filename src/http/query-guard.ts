/**
 * One value per query parameter: `?limit=1&limit=2` is refused with 400 `invalid_request` saying
 * the parameter is given twice (no route takes a list in its query), instead of the route reading
 * the pair as a value of the wrong type.
 */
import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors.js';

/**
 * Install on `app` (a preValidation hook: after auth, before any route reads its query).
 * @throws HttpError 400 `invalid_request`, message `query parameter limit is given 2 times; give it
 *   once`, details `[{path: "limit", code: "duplicate_parameter", message}]`, one per repeated name.
 */
export function installQueryGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const query = request.query as Record<string, unknown> | undefined;
    if (!query || typeof query !== 'object') return;
    const repeated = Object.entries(query).filter(([, v]) => Array.isArray(v)) as [string, unknown[]][];
    if (repeated.length === 0) return;
    const issues = repeated.map(([name, v]) => ({ path: name, code: 'duplicate_parameter', message: `is given ${v.length} times; give it once` }));
    throw badRequest('invalid_request', issues.map((i) => `query parameter ${i.path} ${i.message}`).join('; '), issues);
  });
}
