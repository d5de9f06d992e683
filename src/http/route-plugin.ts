/**
 * The shape of a route plugin: a Fastify plugin that receives `{ services }` as its options.
 * Kept apart from src/app.ts (which lists and registers the plugins) so routes/* never import
 * the app that imports them.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../services.js';

/** Options every route plugin receives. */
export interface RouteOptions {
  services: Services;
}

/** A route plugin registered by buildApp (src/app.ts, `ROUTE_PLUGINS`). */
export type RoutePlugin = FastifyPluginAsync<RouteOptions>;
