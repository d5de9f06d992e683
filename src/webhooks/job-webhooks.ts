/**
 * Webhook messages of a background job that needs a person, derived from its stored events (an
 * event-log observer like ./turn-webhooks.ts, on the job event log):
 * - `job.waiting_on_user`: the job asked a question (answer at POST /v1/jobs/{id}/messages);
 * - `job.waiting_on_approval`: the job's turn waits for calls to be approved or rejected (decide at
 *   POST /v1/turns/{turn_id}/approvals); sent again whenever the list of undecided calls changes.
 * Targets: the `webhook` of the turn that created the job (when its `events` include the type;
 * default all types a turn webhook can have) and the server-wide WEBHOOK_URL, each once.
 * Payload, as Standard Webhooks recommends: `{type, timestamp, data: {job, event}}` with `job` the
 * record as GET /v1/jobs/{id} returns it (its `links` carry no stream token) and `event` the
 * stored job event (with seq, job_id, created_at). One message id per event, kept across retries.
 */
import { randomUUID } from 'node:crypto';
import type { LoggedEvent } from '../store/event-log.js';
import type { JobRecord } from '../jobs/types.js';
import type { NewDelivery } from './store.js';
import { JOB_WEBHOOK_EVENTS, TURN_WEBHOOK_EVENTS, type WebhookEventType, type WebhookSpec } from './webhook-spec.js';

export interface JobWebhookDeps {
  getJob: (id: string) => Promise<JobRecord | undefined>;
  /** The public shape of a job without stream token (GET /v1/jobs/{id}). */
  view: (job: JobRecord) => object;
  /** The `webhook` of a turn's stored request. */
  webhookOf: (turnId: string) => Promise<WebhookSpec | undefined>;
  serverUrl: string | undefined;
  enqueue: (deliveries: NewDelivery[]) => Promise<void>;
}

export function jobWebhookObserver(deps: JobWebhookDeps) {
  return async (logged: LoggedEvent): Promise<void> => {
    const event = logged.event as { type: string };
    if (!JOB_WEBHOOK_EVENTS.includes(event.type as WebhookEventType)) return;
    const job = await deps.getJob(logged.streamId);
    if (!job) return;
    const spec = job.source_turn_id ? await deps.webhookOf(job.source_turn_id) : undefined;
    const urls = new Set<string>();
    if (spec && (spec.events ?? TURN_WEBHOOK_EVENTS).includes(event.type as WebhookEventType)) urls.add(spec.url);
    if (deps.serverUrl) urls.add(deps.serverUrl);
    if (urls.size === 0) return;
    const now = Date.now();
    const payload = JSON.stringify({
      type: event.type,
      timestamp: new Date(now).toISOString(),
      data: { job: deps.view(job), event: { ...event, seq: logged.seq, job_id: logged.streamId, created_at: logged.createdAt } },
    });
    const message_id = `msg_${randomUUID()}`;
    await deps.enqueue([...urls].map((url) => ({ message_id, subject_type: 'job', subject_id: job.id, event_type: event.type, url, payload, created_at: now })));
  };
}
