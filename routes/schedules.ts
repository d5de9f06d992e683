/**
 * Schedule endpoints (README.md "Schedules"), over `services.registry.schedules`:
 * - POST   /v1/schedules            — create (201; `Idempotency-Key` replay → 200 with the same schedule)
 * - GET    /v1/schedules            — newest first; filters `agent_id`, `status`; cursor pagination
 * - GET    /v1/schedules/{id}       — one schedule
 * - PATCH  /v1/schedules/{id}       — change fields, `when`, or `paused`
 * - DELETE /v1/schedules/{id}       — delete; it never fires again (its turns are kept)
 * - GET    /v1/schedules/{id}/runs  — runs, newest first, each linking to the turn it started
 * Errors: `{error: {code, message, details?}}` — 400 `invalid_request` (zod issues) and the
 * ScheduleError codes (src/schedules/errors.ts), 404 `schedule_not_found`, 409
 * `schedule_limit_reached` / `schedule_finished` / `idempotency_key_reused`, 503 `schedules_unavailable`.
 */
import { z } from 'zod';
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { HttpError } from '../src/http/errors.js';
import { scheduleNotFound } from '../src/schedules/errors.js';
import { clientIdempotencyKey, markReplayed } from '../src/http/idempotency.js';
import { requireModel } from '../src/model/require-model.js';
import { turnEventsLink } from '../src/http/stream-token.js';
import { AgentIdSchema, CreateScheduleBodySchema, ScheduleStatusSchema, UpdateScheduleBodySchema } from '../src/schedules/schemas.js';
import type { Schedule, ScheduleService } from '../src/schedules/types.js';
import { assertWebhookTarget, webhookPolicy } from '../src/webhooks/webhook-spec.js';
import { assertApprovalTools } from '../src/turns/approvals/request-check.js';
import { queryInt } from '../src/http/query-int.js';
import { OpaqueCursor } from '../src/list-cursor.js';

const IdParams = z.object({ id: z.string().min(1).max(100) });
const ListQuery = z
  .object({
    agent_id: AgentIdSchema.optional(),
    status: ScheduleStatusSchema.optional(),
    limit: queryInt(1, 200, 50),
    cursor: OpaqueCursor.optional(),
  });
const RunsQuery = z.object({ limit: queryInt(1, 200, 50), cursor: OpaqueCursor.optional() });

/** A schedule as returned over REST: the record plus links. */
export function withLinks(s: Schedule): Schedule & { links: { self: string; runs: string } } {
  const self = `/v1/schedules/${encodeURIComponent(s.id)}`;
  return { ...s, links: { self, runs: `${self}/runs` } };
}

export const scheduleRoutes: RoutePlugin = async (app, { services }) => {
  const schedules = (): ScheduleService => {
    const s = services.registry.schedules;
    if (!s) throw new HttpError(503, 'schedules_unavailable', 'the schedule service is not configured on this server');
    return s;
  };
  const found = async (id: string): Promise<Schedule> => {
    const s = await schedules().get(id);
    if (!s) throw scheduleNotFound(id);
    return s;
  };

  app.post('/v1/schedules', async (request, reply) => {
    const body = CreateScheduleBodySchema.parse(request.body ?? undefined);
    // A schedule that could never run is refused now, not discovered as a failed run later.
    requireModel(services.turns.modelConfigured, body.model, services.config.MODEL);
    if (body.webhook) await assertWebhookTarget(body.webhook.url, webhookPolicy(services.config));
    if (body.approvals) {
      await assertApprovalTools(services, { agent_id: body.agent_id ?? 'default', model: body.model ?? undefined, tools: body.tools ?? services.config.DEFAULT_TOOLS, brain: body.brain, approvals: body.approvals, for: 'schedule' });
    }
    const { schedule, created } = await schedules().create(
      { ...body, agent_id: body.agent_id ?? 'default', tools: body.tools ?? services.config.DEFAULT_TOOLS },
      { created_by: { type: 'api' }, idempotencyKey: clientIdempotencyKey(request) },
    );
    const out = withLinks(schedule);
    if (!created) markReplayed(reply);
    return reply.code(201).header('Location', out.links.self).send(out);
  });

  app.get('/v1/schedules', { config: { query: ListQuery } }, async (request) => {
    const q = ListQuery.parse(request.query);
    const page = await schedules().list(q);
    return { data: page.data.map(withLinks), next_cursor: page.next_cursor };
  });

  app.get('/v1/schedules/:id', async (request) => {
    const { id } = IdParams.parse(request.params);
    return withLinks(await found(id));
  });

  app.patch('/v1/schedules/:id', async (request) => {
    const { id } = IdParams.parse(request.params);
    const body = UpdateScheduleBodySchema.parse(request.body ?? undefined);
    if (body.webhook) await assertWebhookTarget(body.webhook.url, webhookPolicy(services.config));
    if (body.approvals) {
      const s = await found(id);
      await assertApprovalTools(services, { agent_id: s.agent_id, model: (body.model ?? s.model) ?? undefined, tools: body.tools ?? s.tools, brain: body.brain ?? s.brain, approvals: body.approvals, for: 'schedule' });
    }
    return withLinks(await schedules().update(id, body));
  });

  app.delete('/v1/schedules/:id', async (request) => {
    const { id } = IdParams.parse(request.params);
    const deleted = await schedules().delete(id);
    return { id: deleted.id, deleted: true };
  });

  app.get('/v1/schedules/:id/runs', { config: { query: RunsQuery } }, async (request) => {
    const { id } = IdParams.parse(request.params);
    const q = RunsQuery.parse(request.query);
    const page = await schedules().listRuns(id, q);
    // links.events carries a stream token for the run's turn when auth is on (as turns' links do).
    const data = page.data.map((run) =>
      run.links && run.turn_id ? { ...run, links: { ...run.links, events: turnEventsLink(run.turn_id, services.streamTokens) } } : run,
    );
    return { ...page, data };
  });
};
