/**
 * Webhook messages of a finished workflow, derived from its stored terminal event
 * (`workflow.completed` / `workflow.failed` / `workflow.cancelled`, src/workflows/events.ts) — an
 * event-log observer like ./turn-webhooks.ts. The target is the workflow's `webhook` (remembered
 * in the webhook store at creation; its `events` default to the three workflow types). Payload:
 * `{type, timestamp, data: {workflow: <the record as GET /v1/workflows/{id} returns it, links
 * without stream token>, event}}`.
 */
import { randomUUID } from 'node:crypto';
import type { LoggedEvent } from '../store/event-log.js';
import type { NewDelivery } from './store.js';
import { WORKFLOW_WEBHOOK_EVENTS, type WebhookEventType, type WebhookSpec } from './webhook-spec.js';

export interface WorkflowWebhookDeps {
  getWorkflow: (id: string) => Promise<{ id: string } | undefined>;
  webhookOf: (id: string) => Promise<WebhookSpec | undefined>;
  enqueue: (deliveries: NewDelivery[]) => Promise<void>;
}

function plainLinks(id: string) {
  const base = `/v1/workflows/${encodeURIComponent(id)}`;
  return { self: base, events: `${base}/events`, cancel: `${base}/cancel` };
}

export function workflowWebhookObserver(deps: WorkflowWebhookDeps) {
  return async (logged: LoggedEvent): Promise<void> => {
    const event = logged.event;
    if (!WORKFLOW_WEBHOOK_EVENTS.includes(event.type as WebhookEventType)) return;
    const spec = await deps.webhookOf(logged.streamId);
    if (!spec || !(spec.events ?? WORKFLOW_WEBHOOK_EVENTS).includes(event.type as WebhookEventType)) return;
    const workflow = await deps.getWorkflow(logged.streamId);
    if (!workflow) return;
    const now = Date.now();
    const payload = JSON.stringify({
      type: event.type,
      timestamp: new Date(now).toISOString(),
      data: {
        workflow: { ...workflow, links: plainLinks(workflow.id) },
        event: { ...event, seq: logged.seq, workflow_id: logged.streamId, created_at: logged.createdAt },
      },
    });
    await deps.enqueue([{ message_id: `msg_${randomUUID()}`, subject_type: 'workflow', subject_id: workflow.id, event_type: event.type, url: spec.url, payload, created_at: now }]);
  };
}
