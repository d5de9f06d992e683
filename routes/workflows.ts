/**
 * Workflow endpoints (README.md "Workflows"), over `services.registry.workflows`:
 * - POST /v1/workflows — create and start (201 + Location); 400 `invalid_workflow` with one
 *   `{path, code, message}` detail per violation (result-schema subset, limits); 503 `model_not_configured`.
 * - GET  /v1/workflows — newest first; filters `agent_id`, `status` (a status, `live` or `done`); cursor pagination.
 * - GET  /v1/workflows/{id} — the workflow with its tasks and results.
 * - POST /v1/workflows/{id}/cancel — no body or `{}` (any field → 400); abort running task turns,
 *   cancel queued tasks; a finished workflow is returned unchanged.
 * - GET  /v1/workflows/{id}/events — resumable SSE (same id / Last-Event-ID rules as turn streams;
 *   src/http/sse-stream.ts), closing after `workflow.completed|failed|cancelled`. An `Accept` without
 *   `text/event-stream` (say `application/json` alone) → 406 `not_acceptable`.
 */
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { HttpError, notFound } from '../src/http/errors.js';
import { bodyHash, clientIdempotencyKey, markReplayed } from '../src/http/idempotency.js';
import { requireModel } from '../src/model/require-model.js';
import { acceptsEventStream, eventStreamNotAcceptable } from '../src/http/negotiate.js';
import { resumePoint, streamEventLog } from '../src/http/sse-stream.js';
import { workflowEventsLink, type StreamTokens } from '../src/http/stream-token.js';
import type { LoggedEvent } from '../src/store/event-log.js';
import { isWorkflowTerminalEvent, type WorkflowEvent } from '../src/workflows/events.js';
import { type WorkflowRecord, type WorkflowService } from '../src/workflows/types.js';
import { CancelWorkflowBody, CreateWorkflowBody, ListWorkflowsQuery, WorkflowEventsQuery, WorkflowIdParams } from './workflow-schemas.js';
import { assertWebhookTarget, webhookPolicy } from '../src/webhooks/webhook-spec.js';
import { queryPaging } from '../src/list-cursor.js';

/**
 * Links of a workflow, relative to the service root. With `streamTokens` (AUTH_TOKENS set),
 * `events` carries a fresh workflow-scoped `stream_token` so a browser's EventSource can open it
 * (src/http/stream-token.ts).
 */
export function workflowLinks(id: string, streamTokens?: StreamTokens): { self: string; events: string; cancel: string } {
  const self = `/v1/workflows/${encodeURIComponent(id)}`;
  return { self, events: workflowEventsLink(id, streamTokens), cancel: `${self}/cancel` };
}

/** SSE `data:` of a stored workflow event: the event plus seq, workflow_id and created_at. */
export function workflowEventData(logged: LoggedEvent<WorkflowEvent>): object {
  return { ...logged.event, seq: logged.seq, workflow_id: logged.streamId, created_at: logged.createdAt };
}

export const workflowRoutes: RoutePlugin = async (app, { services }) => {
  const workflows = (): WorkflowService => {
    const w = services.registry.workflows;
    if (!w) throw new HttpError(503, 'workflows_unavailable', 'the workflow service is not configured on this server');
    return w;
  };
  const withLinks = (wf: WorkflowRecord) => ({ ...wf, links: workflowLinks(wf.id, services.streamTokens) });
  const found = async (id: string): Promise<WorkflowRecord> => {
    const wf = await workflows().get(id);
    if (!wf) throw notFound('workflow', id);
    return wf;
  };

  app.post('/v1/workflows', async (request, reply) => {
    const body = CreateWorkflowBody.parse(request.body ?? undefined);
    const service = workflows();
    requireModel(services.turns.modelConfigured, body.model, services.config.MODEL);
    const { webhook, ...workflowInput } = body;
    if (webhook) await assertWebhookTarget(webhook.url, webhookPolicy(services.config));
    const { value: wf, replayed } = await services.stores.idempotency.run('workflow', clientIdempotencyKey(request), bodyHash(body), {
      create: async () => {
        const created = await service.create(workflowInput);
        // Remembered before any task turn can have finished (they need model round trips first).
        if (webhook) await services.webhooks.store.subscribe('workflow', created.id, webhook);
        return created;
      },
      idOf: (created) => created.id,
      load: (id) => service.get(id),
    });
    if (replayed) markReplayed(reply);
    return reply.code(201).header('Location', workflowLinks(wf.id).self).send(withLinks(wf));
  });

  app.get('/v1/workflows', { config: { query: ListWorkflowsQuery } }, async (request) => {
    const q = ListWorkflowsQuery.parse(request.query);
    const paging = queryPaging('workflows', q);
    const page = await workflows().list({ ...q, cursor: paging.after });
    return { data: page.workflows.map(withLinks), next_cursor: paging.next(page.next_cursor) };
  });

  app.get('/v1/workflows/:id', async (request) => {
    const { id } = WorkflowIdParams.parse(request.params);
    return withLinks(await found(id));
  });

  app.post('/v1/workflows/:id/cancel', async (request) => {
    const { id } = WorkflowIdParams.parse(request.params);
    CancelWorkflowBody.parse(request.body);
    await found(id);
    return withLinks((await workflows().cancel(id))!);
  });

  app.get('/v1/workflows/:id/events', { sse: 'manual', config: { query: WorkflowEventsQuery } }, async (request, reply) => {
    const { id } = WorkflowIdParams.parse(request.params);
    WorkflowEventsQuery.parse(request.query);
    await found(id);
    if (!acceptsEventStream(request.headers.accept)) throw eventStreamNotAcceptable(`/v1/workflows/${encodeURIComponent(id)}`, 'workflow', request.headers.accept);
    const log = workflows().events;
    const after = resumePoint(request, await log.lastSeq(id));
    await streamEventLog(reply, {
      log,
      streamId: id,
      after,
      toData: workflowEventData,
      isTerminal: isWorkflowTerminalEvent,
      maxBuffered: services.config.SSE_MAX_BUFFERED_EVENTS,
      writeTimeoutMs: services.config.SSE_WRITE_TIMEOUT_MS,
      logger: reply.log,
      logFields: { workflow_id: id },
    });
  });
};
