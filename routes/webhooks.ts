/**
 * GET /v1/turns/{id}/webhooks, GET /v1/workflows/{id}/webhooks and GET /v1/jobs/{id}/webhooks —
 * the webhook deliveries of a turn, a workflow or a background job (its `job.waiting_on_*`
 * events) and every attempt
 * (src/webhooks/): `{data: [{id, message_id, event_type, url, state, attempts, next_attempt_at,
 * created_at}]}`, oldest first. `state`: `pending` (an attempt is due at `next_attempt_at`),
 * `delivered`, `failed` (given up after 24 h, or at once on 410 Gone). 404 when the turn, workflow or job does not exist.
 */
import { redactUserinfo } from '../src/config.js';
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { notFound } from '../src/http/errors.js';
import type { Delivery } from '../src/webhooks/store.js';
import { TurnIdParams } from './turn-schemas.js';
import { WorkflowIdParams } from './workflow-schemas.js';
import { JobIdParams } from './job-schemas.js';

/** A delivery as the API shows it (times ISO 8601; a URL's userinfo, if one was ever stored, as `***@`). */
export function deliveryView(d: Delivery) {
  return {
    id: String(d.id),
    message_id: d.message_id,
    event_type: d.event_type,
    url: redactUserinfo(d.url),
    state: d.state,
    attempts: d.attempts,
    next_attempt_at: d.next_attempt_at === null ? null : new Date(d.next_attempt_at).toISOString(),
    created_at: new Date(d.created_at).toISOString(),
  };
}

export const webhookRoutes: RoutePlugin = async (app, { services }) => {
  app.get('/v1/turns/:id/webhooks', async (request) => {
    const { id } = TurnIdParams.parse(request.params);
    if (!(await services.turns.get(id))) throw notFound('turn', id);
    const deliveries = await services.webhooks.store.listFor('turn', id);
    return { data: deliveries.map(deliveryView) };
  });

  app.get('/v1/workflows/:id/webhooks', async (request) => {
    const { id } = WorkflowIdParams.parse(request.params);
    if (!(await services.registry.workflows?.get(id))) throw notFound('workflow', id);
    const deliveries = await services.webhooks.store.listFor('workflow', id);
    return { data: deliveries.map(deliveryView) };
  });

  app.get('/v1/jobs/:id/webhooks', async (request) => {
    const { id } = JobIdParams.parse(request.params);
    if (!(await services.registry.jobs?.get(id))) throw notFound('job', id);
    const deliveries = await services.webhooks.store.listFor('job', id);
    return { data: deliveries.map(deliveryView) };
  });
};
