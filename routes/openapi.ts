/**
 * GET /openapi.yaml — the OpenAPI document at the repository root, as written.
 * GET /docs — interactive API reference (Scalar) rendering that same document.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import scalar from '@scalar/fastify-api-reference';
import type { RoutePlugin } from '../src/http/route-plugin.js';

/** Find openapi.yaml at the project root, from routes/ (tsx) or dist/routes/ (built). */
export function openapiPath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const rel of ['../openapi.yaml', '../../openapi.yaml']) {
    const p = path.resolve(here, rel);
    try {
      readFileSync(p);
      return p;
    } catch {
      // try the next candidate
    }
  }
  throw new Error('openapi.yaml not found beside the project root');
}

export const openapiRoutes: RoutePlugin = async (app) => {
  const spec = readFileSync(openapiPath(), 'utf8');
  app.get('/openapi.yaml', async (_req, reply) => reply.type('application/yaml; charset=utf-8').send(spec));
  await app.register(scalar, {
    routePrefix: '/docs',
    configuration: { content: spec, title: 'Turn service API' },
    logLevel: 'warn',
  });
};
