/**
 * GET /openapi.yaml — the OpenAPI document at the repository root, as written.
 * GET /docs/ — interactive API reference (Scalar) rendering that same document. GET /docs (no
 * slash) is a 301 to /docs/ with a short text/plain body saying where the page and the document
 * are ({@link DOCS_MOVED}), so a client that does not follow redirects (curl without -L) reads that
 * rather than nothing. The page is not served at /docs itself: Scalar's page loads its script and
 * the document by relative URLs (`js/scalar.js`, `./openapi.json`, the latter fixed by the plugin),
 * which resolve under /docs/ only.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import scalar from '@scalar/fastify-api-reference';
import type { FastifyReply, FastifyRequest } from 'fastify';
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

/** The body of the 301 from GET /docs to /docs/ (text/plain). */
export const DOCS_MOVED =
  'The API reference page is at /docs/ (with the slash at the end): open that, or follow this redirect (curl -L). The OpenAPI document it renders is at /openapi.yaml.\n';

/**
 * Scalar's preHandler (it runs for every route of the plugin): the page's route `/docs/` also
 * matches `/docs` (ignoreTrailingSlash), where the plugin would answer an empty 301; this answers
 * that 301 itself, Location `/docs/`, with {@link DOCS_MOVED} as its body.
 */
async function docsWithoutSlash(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.routeOptions.url !== '/docs/' || request.url.split('?')[0].endsWith('/')) return;
  await reply.code(301).header('location', '/docs/').type('text/plain; charset=utf-8').send(DOCS_MOVED);
}

export const openapiRoutes: RoutePlugin = async (app) => {
  const spec = readFileSync(openapiPath(), 'utf8');
  app.get('/openapi.yaml', async (_req, reply) => reply.type('application/yaml; charset=utf-8').send(spec));
  await app.register(scalar, {
    routePrefix: '/docs',
    configuration: { content: spec, title: 'Turn service API' },
    hooks: { preHandler: docsWithoutSlash },
    logLevel: 'warn',
  });
};
