/**
 * The routes an app registered, recorded from Fastify's `onRoute` hook, and which methods a
 * concrete path allows — for 405 `method_not_allowed` answers with an `Allow` header, and for the
 * test that openapi.yaml documents every route.
 */
import type { FastifyInstance } from 'fastify';

/** One registered route: method and URL as declared (`/v1/turns/:id`). */
export interface RegisteredRoute {
  method: string;
  url: string;
  /** The query parameters it accepts: the keys of its declared query schema (src/http/query-guard.ts); empty without one. */
  query: string[];
}

const ROUTES = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Start recording the routes of `app` (call before registering any route). */
export function recordRoutes(app: FastifyInstance): void {
  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', (r) => {
    const query = r.config?.query ? Object.keys(r.config.query.shape) : [];
    for (const method of [r.method].flat()) routes.push({ method: String(method), url: r.url, query });
  });
  ROUTES.set(app, routes);
}

/** Every route `app` registered so far (empty when {@link recordRoutes} was not called). */
export function registeredRoutes(app: FastifyInstance): RegisteredRoute[] {
  return [...(ROUTES.get(app) ?? [])];
}

const trim = (p: string) => (p.length > 1 ? p.replace(/\/+$/, '') : p);

/** True when a concrete path matches a declared URL (`:name` = one non-empty segment). */
function matches(declared: string, path: string): boolean {
  const want = trim(declared).split('/');
  const got = trim(path).split('/');
  return want.length === got.length && want.every((seg, i) => (seg.startsWith(':') ? got[i] !== '' : seg === got[i]));
}

/**
 * Methods registered for a concrete path (query string already removed), sorted, e.g.
 * `['GET', 'HEAD']` for `/v1/turns/0190…`. Wildcard routes (`*`, such as a CORS preflight
 * catch-all) are ignored, so an unknown path allows nothing.
 */
export function allowedMethods(app: FastifyInstance, path: string): string[] {
  const methods = new Set<string>();
  for (const r of ROUTES.get(app) ?? []) {
    if (!r.url.includes('*') && matches(r.url, path)) methods.add(r.method.toUpperCase());
  }
  return [...methods].sort();
}
