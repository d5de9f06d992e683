/**
 * Brain page endpoints (README.md "Brain"), over `services.registry.brain`:
 * - PUT    /v1/agents/{agent_id}/brain/pages/{slug} {title, markdown} — create (201) or replace (200);
 *   the body's shape is checked here (400 `invalid_request`), the page by the store (400
 *   `invalid_page` for a title of only whitespace or markdown over 512 KiB: src/brain/brain-store.ts
 *   validatePage, details `[{path, code, message}]`)
 * - GET    /v1/agents/{agent_id}/brain/pages/{slug} — the page (404 `page_not_found`)
 * - DELETE /v1/agents/{agent_id}/brain/pages/{slug} — delete (404 when absent)
 * - GET    /v1/agents/{agent_id}/brain/pages — summaries ordered by slug; `limit`, `cursor` (opaque,
 *   routes/brain-cursor.ts; one the service never returned → 400 `invalid_request`)
 * Turns read pages with `recall`/`get_page` when created with `brain: true`.
 */
import { z } from 'zod';
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { MAX_TITLE_CHARS, SLUG_RULE, titleCharsCheck, type BrainStore } from '../src/brain/brain-store.js';
import { namePatternString } from '../src/name-pattern.js';
import { HttpError, notFoundHint } from '../src/http/errors.js';
import { escapeUnsafeChars } from '../src/unsafe-chars.js';
import { AgentId } from './turn-schemas.js';
import { queryInt } from '../src/http/query-int.js';
import { BrainCursor, encodeBrainCursor } from './brain-cursor.js';

const PageParams = z.object({
  agent_id: AgentId,
  slug: namePatternString(SLUG_RULE),
});
const AgentParams = z.object({ agent_id: AgentId });
const PutPageBody = z.strictObject({ title: z.string().min(1).max(MAX_TITLE_CHARS).check(titleCharsCheck), markdown: z.string() });
const ListPagesQuery = z.object({
  limit: queryInt(1, 200, 50),
  cursor: BrainCursor.optional(),
});

const pageLink = (agentId: string, slug: string) =>
  `/v1/agents/${encodeURIComponent(agentId)}/brain/pages/${encodeURIComponent(slug)}`;

export const brainRoutes: RoutePlugin = async (app, { services }) => {
  const brain = (): BrainStore => {
    const b = services.registry.brain;
    if (!b) throw new HttpError(503, 'brain_unavailable', 'the brain store is not configured on this server');
    return b;
  };
  const pageNotFound = (agentId: string, slug: string) => {
    const { shown, hint, details } = notFoundHint('brain_page', slug, `/v1/agents/${encodeURIComponent(agentId)}/brain/pages`, 'pages', 'slug');
    return new HttpError(404, 'page_not_found', `agent ${escapeUnsafeChars(agentId)} has no brain page ${shown}: ${hint}`, { ...details, agent_id: escapeUnsafeChars(agentId), slug: details.id });
  };

  app.put('/v1/agents/:agent_id/brain/pages/:slug', async (request, reply) => {
    const { agent_id, slug } = PageParams.parse(request.params);
    const body = PutPageBody.parse(request.body ?? undefined);
    const { page, created } = await brain().put(agent_id, slug, body);
    return reply.code(created ? 201 : 200).header('Location', pageLink(agent_id, slug)).send(page);
  });

  app.get('/v1/agents/:agent_id/brain/pages/:slug', async (request) => {
    const { agent_id, slug } = PageParams.parse(request.params);
    const page = await brain().get(agent_id, slug);
    if (!page) throw pageNotFound(agent_id, slug);
    return page;
  });

  app.delete('/v1/agents/:agent_id/brain/pages/:slug', async (request) => {
    const { agent_id, slug } = PageParams.parse(request.params);
    if (!(await brain().delete(agent_id, slug))) throw pageNotFound(agent_id, slug);
    return { agent_id, slug, deleted: true };
  });

  app.get('/v1/agents/:agent_id/brain/pages', { config: { query: ListPagesQuery } }, async (request) => {
    const { agent_id } = AgentParams.parse(request.params);
    const q = ListPagesQuery.parse(request.query);
    const { pages, next } = await brain().list(agent_id, { limit: q.limit, after: q.cursor });
    return { data: pages, next_cursor: encodeBrainCursor(next) };
  });
};
