/**
 * Which webhook messages a finished turn produces, derived from its stored terminal event (an
 * event-log observer, src/telemetry/event-log-hooks.ts) — not from the runner's internals:
 * - targets: the turn request's `webhook.url` (when its `events` include this type; default all
 *   terminal types) and the server-wide WEBHOOK_URL (every terminal event), each once;
 * - payload, as Standard Webhooks recommends: `{type, timestamp, data: {turn, event}}` with `turn`
 *   the record as GET /v1/turns/{id} returns it (its `links` carry no stream token: that is a
 *   credential) and `event` the stored terminal event (with seq, turn_id, created_at).
 * One message id (`msg_<uuid>`) per terminal event, shared by its targets and kept across retries.
 */
import { randomUUID } from 'node:crypto';
import { isTerminalEvent, type TurnEvent } from '../runtime/events.js';
import type { LoggedEvent } from '../store/event-log.js';
import type { TurnRecord } from '../turns/turn-service-types.js';
import { TURN_WEBHOOK_EVENTS, type WebhookEventType, type WebhookSpec } from './webhook-spec.js';
import type { NewDelivery } from './store.js';

export interface TurnWebhookDeps {
  getTurn: (id: string) => Promise<TurnRecord | undefined> | TurnRecord | undefined;
  /** The `webhook` of the turn's stored request. */
  webhookOf: (id: string) => Promise<WebhookSpec | undefined> | WebhookSpec | undefined;
  serverUrl: string | undefined;
  enqueue: (deliveries: NewDelivery[]) => Promise<void>;
}

/** `links` of a turn record without a stream token. */
function plainLinks(id: string) {
  const base = `/v1/turns/${encodeURIComponent(id)}`;
  return { self: base, events: `${base}/events`, cancel: `${base}/cancel` };
}

export function turnWebhookObserver(deps: TurnWebhookDeps) {
  const deliver = async (logged: LoggedEvent, event: TurnEvent): Promise<void> => {
    // The targets first: the record (for the payload) is read only when there is one to send to.
    const spec = await deps.webhookOf(logged.streamId);
    const urls = new Set<string>();
    if (spec && (spec.events ?? TURN_WEBHOOK_EVENTS).includes(event.type as WebhookEventType)) urls.add(spec.url);
    if (deps.serverUrl) urls.add(deps.serverUrl);
    if (urls.size === 0) return;
    const turn = await deps.getTurn(logged.streamId);
    if (!turn) return;
    const now = Date.now();
    const payload = JSON.stringify({
      type: event.type,
      timestamp: new Date(now).toISOString(),
      data: {
        // A finished turn has no pending approvals (GET /v1/turns/{id} lists none either).
        turn: { ...turn, links: plainLinks(turn.id), pending_approvals: [] },
        event: { ...event, seq: logged.seq, turn_id: logged.streamId, created_at: logged.createdAt },
      },
    });
    const message_id = `msg_${randomUUID()}`;
    await deps.enqueue([...urls].map((url) => ({ message_id, subject_type: 'turn', subject_id: turn.id, event_type: event.type, url, payload, created_at: now })));
  };
  // Synchronous for every event but a turn's terminal one (no promise for most of a turn's events).
  return (logged: LoggedEvent): Promise<void> | undefined => {
    const event = logged.event as TurnEvent;
    if (!event.type.startsWith('turn.') || !isTerminalEvent(event)) return undefined;
    return deliver(logged, event);
  };
}
