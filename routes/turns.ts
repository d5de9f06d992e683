/**
 * Turn endpoints (README.md "API"):
 * - POST /v1/turns — create; an `Accept` that prefers `text/event-stream` (q-values weighed,
 *   src/http/negotiate.ts) → 200 SSE from the first event; one that rules out both it and
 *   `application/json` (`application/xml`) → 406 `not_acceptable`, nothing created; otherwise 202 `{id, status, links}`;
 *   `?wait=true` → 200 with the final turn (on shutdown before it ended: 503 `shutting_down` with the
 *   turn's id, {@link sendShuttingDown}). `cancel_on_disconnect: true`: a client that leaves the
 *   stream or the `?wait=true` request before the turn ended cancels it (ignored for the 202 answer).
 *   `Idempotency-Key`: same key + same body (defaults filled in) → the same turn as it is now;
 *   different body → 409.
 *   `previous_turn_id` of an active turn: `multitask_strategy` decides (reject → 409, enqueue,
 *   interrupt, steer → 202 `{id: <that turn>, steered: true, message_id}` whatever the Accept/wait;
 *   a steer with any body field besides input, previous_turn_id, agent_id and multitask_strategy
 *   → 400 `invalid_request` naming each, as steering would drop them).
 * - GET /v1/turns — newest first, `agent_id`/`status` filters, cursor pagination.
 * - GET /v1/turns/{id} — the turn record, with `pending_approvals` (routes/turn-approvals.ts).
 * Every turn returned (wait=true, list, get, cancel) carries `links` (self, events, cancel).
 * - GET /v1/turns/{id}/events — resumable SSE (src/http/sse-stream.ts); an `Accept` without
 *   `text/event-stream` (say `application/json` alone) → 406 `not_acceptable`.
 * - POST /v1/turns/{id}/cancel — no body or `{}` (any field → 400); abort; returns the turn as GET does (with
 *   `pending_approvals`); a finished turn is returned unchanged; an active workflow
 *   task or background job turn → 409 `turn_owned` (stop the job / cancel the workflow instead).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { envelope, HttpError, notFound } from '../src/http/errors.js';
import { acceptsEventStream, eventStreamNotAcceptable, jsonOrEventStreamNotAcceptable, negotiateResponse } from '../src/http/negotiate.js';
import { clientIdempotencyKey, markReplayed } from '../src/http/idempotency.js';
import { resumePoint, streamEventLog } from '../src/http/sse-stream.js';
import { turnEventsLink, type StreamTokens } from '../src/http/stream-token.js';
import { isTerminalEvent, type TurnEvent } from '../src/runtime/events.js';
import type { LoggedEvent } from '../src/store/event-log.js';
import type { Services } from '../src/services.js';
import type { TurnRecord } from '../src/turns/turn-service-types.js';
import { isFinished } from '../src/turns/turn-outcome.js';
import { turnOwnedRefusal } from '../src/turns/turn-owner.js';
import { assertApprovalTools } from '../src/turns/approvals/request-check.js';
import { assertKnownSkills } from './skills.js';
import { assertWebhookTarget, webhookPolicy } from '../src/webhooks/webhook-spec.js';
import { CancelTurnBody, CreateTurnBody, CreateTurnQuery, EventsQuery, ListTurnsQuery, TurnIdParams } from './turn-schemas.js';
import { queryPaging } from '../src/list-cursor.js';

/**
 * Links of a turn, relative to the service root. With `streamTokens` (AUTH_TOKENS set), `events`
 * carries a short-lived `stream_token` for that turn only, so a browser's EventSource (which cannot
 * send Authorization) can subscribe.
 */
export function turnLinks(id: string, streamTokens?: StreamTokens): { self: string; events: string; cancel: string } {
  const base = `/v1/turns/${encodeURIComponent(id)}`;
  return { self: base, events: turnEventsLink(id, streamTokens), cancel: `${base}/cancel` };
}

/** A turn record as every endpoint returns it: the record plus {@link turnLinks}. */
export function withTurnLinks(turn: TurnRecord, streamTokens?: StreamTokens): TurnRecord & { links: ReturnType<typeof turnLinks> } {
  return { ...turn, links: turnLinks(turn.id, streamTokens) };
}

/** SSE `data:` of a stored turn event: the event plus seq, turn_id and created_at (StoredTurnEvent). */
export function turnEventData(logged: LoggedEvent<TurnEvent>): object {
  return { ...logged.event, seq: logged.seq, turn_id: logged.streamId, created_at: logged.createdAt };
}

/**
 * {@link turnEventData} as JSON text, made from the JSON the store kept (`logged.json`) when it can
 * be: the same text as `JSON.stringify(turnEventData(logged))` — the three fields appended to the
 * event's own — without serializing the event again. Otherwise (no stored JSON, or an event that
 * has one of those fields itself, such as `turn.started`'s `turn_id`) the object.
 */
export function turnEventFrameData(logged: LoggedEvent<TurnEvent>): object | string {
  const { json, event } = logged;
  if (json === undefined || json.length < 3 || json.charCodeAt(json.length - 1) !== 125 /* } */ || 'seq' in event || 'turn_id' in event || 'created_at' in event) {
    return turnEventData(logged);
  }
  return `${json.slice(0, -1)},"seq":${logged.seq},"turn_id":${JSON.stringify(logged.streamId)},"created_at":${JSON.stringify(logged.createdAt)}}`;
}

async function streamTurn(services: Services, reply: FastifyReply, turnId: string, after: number) {
  return streamEventLog(reply, {
    log: services.eventLog,
    streamId: turnId,
    after,
    toData: turnEventFrameData,
    isTerminal: isTerminalEvent,
    maxBuffered: services.config.SSE_MAX_BUFFERED_EVENTS,
    writeTimeoutMs: services.config.SSE_WRITE_TIMEOUT_MS,
    logger: reply.log,
    logFields: { turn_id: turnId },
  });
}

/** Retry-After (seconds) of the 503 a `?wait=true` request gets on shutdown: about a restart. */
export const SHUTDOWN_RETRY_AFTER_S = 5;

/** How long closing the app waits for the `?wait=true` requests it answers to be sent. */
const SHUTDOWN_ANSWER_MS = 2000;

/**
 * Answer a `?wait=true` request whose turn had not ended when the service began to shut down:
 * 503 `shutting_down` with `Retry-After`, `Location` and `X-Turn-Id`, a message saying the turn is
 * kept and goes on after the restart and how to follow it, details `{turn_id, status, events}`
 * (`events` the turn's event stream path). The turn is not cancelled, whatever
 * `cancel_on_disconnect` says: the client did not leave.
 */
function sendShuttingDown(reply: FastifyReply, turnId: string, status: string) {
  const self = `/v1/turns/${encodeURIComponent(turnId)}`;
  const events = `${self}/events`;
  return reply
    .code(503)
    .header('Retry-After', String(SHUTDOWN_RETRY_AFTER_S))
    .header('Location', self)
    .header('X-Turn-Id', turnId)
    .header('Connection', 'close')
    .send(envelope(
      'shutting_down',
      `the service is shutting down before turn ${turnId} ended; the turn is kept and goes on after the restart: follow it with GET ${events} (resume with Last-Event-ID) or read it with GET ${self} once the service is back`,
      { turn_id: turnId, status, events },
    ));
}

export const turnRoutes: RoutePlugin = async (app, { services }) => {
  const { turns } = services;
  // `?wait=true` requests still waiting: on close they are answered 503 shutting_down (with the
  // turn's id) before Fastify cuts the connections, instead of being cut with no answer.
  const closing = new AbortController();
  const waiting = new Set<Promise<void>>();
  app.addHook('preClose', async () => {
    closing.abort(new Error('shutting down'));
    if (waiting.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...waiting]), new Promise((resolve) => (timer = setTimeout(resolve, SHUTDOWN_ANSWER_MS)))]);
    clearTimeout(timer);
  });

  // `manual`: the route weighs Accept q-values itself (src/http/negotiate.ts); @fastify/sse's `dual`
  // gate would stream for any text/event-stream with q > 0, however it ranks against JSON.
  app.post('/v1/turns', { sse: 'manual', config: { query: CreateTurnQuery } }, async (request: FastifyRequest, reply) => {
    // Before anything is created: an Accept that takes neither answer gets none.
    const kind = negotiateResponse(request.headers.accept);
    if (kind === undefined) throw jsonOrEventStreamNotAcceptable('POST /v1/turns', request.headers.accept);
    const body = CreateTurnBody.parse(request.body ?? undefined);
    const query = CreateTurnQuery.parse(request.query);
    // Client keys live in their own `api:` namespace, so a client can never take a key the
    // service uses itself (the scheduler's `schedule_run:<run id>`).
    const idempotencyKey = clientIdempotencyKey(request);
    const { cancel_on_disconnect, ...input } = body;
    // The checks of fields a new turn uses. A steer on an active turn uses none of them and refuses
    // them as not_used_by_steer, so for a steer request they run only once the service knows it
    // starts a new turn (the previous turn has finished): a webhook without WEBHOOK_SECRET is not
    // answered 503 before the steer's own rule.
    const newTurnChecks = async () => {
      if (input.skills) await assertKnownSkills(services, input.skills);
      if (input.webhook) await assertWebhookTarget(input.webhook.url, webhookPolicy(services.config));
      if (input.approvals) await assertApprovalTools(services, input);
    };
    const steering = input.multitask_strategy === 'steer' && input.previous_turn_id !== undefined;
    if (!steering) await newTurnChecks();
    const turn = await turns.create(input, {
      idempotencyKey,
      origin: { type: 'api' },
      kind: 'main',
      traceparent: request.headers.traceparent as string | undefined,
      onReplay: () => markReplayed(reply),
      // Read here, not stored with the turn: a steer, which never streams or waits, refuses it too.
      callerFields: cancel_on_disconnect ? ['cancel_on_disconnect'] : [],
      newTurnChecks: steering ? newTurnChecks : undefined,
    });
    const links = turnLinks(turn.id, services.streamTokens);
    if (turn.steered) {
      // Double-texting `steer`: no new turn; the input went into the active previous turn.
      return reply.code(202).header('Location', links.self).send({ id: turn.id, status: turn.status, steered: true, message_id: turn.steered.message_id, links });
    }

    if (kind === 'sse') {
      reply.header('Location', links.self).header('X-Turn-Id', turn.id);
      const end = await streamTurn(services, reply, turn.id, 0);
      if (end === 'disconnected' && cancel_on_disconnect) await turns.cancel(turn.id);
      return;
    }
    if (query.wait === 'true') {
      // One 'close' listener for both: the response closes before it is answered only when the
      // client left, which aborts the wait (once answered, nothing reads `ac` any more); and
      // whenever it closes, the shutdown hook stops waiting for it.
      const ac = new AbortController();
      const answered = new Promise<void>((resolve) =>
        reply.raw.once('close', () => {
          ac.abort(new Error('client went away'));
          resolve();
        }),
      );
      waiting.add(answered);
      void answered.then(() => waiting.delete(answered));
      try {
        const done = await turns.waitForTerminal(turn.id, AbortSignal.any([ac.signal, closing.signal]));
        // The same shape as GET /v1/turns/{id} (a finished turn has no pending approvals).
        return reply.code(200).send({ ...withTurnLinks(done, services.streamTokens), pending_approvals: await services.approvals.pending(done.id, true) });
      } catch (err) {
        if (closing.signal.aborted && !ac.signal.aborted) {
          // Shutdown, not the client: answer with the turn's id instead of a cut connection.
          const now = await turns.get(turn.id).catch(() => undefined);
          return sendShuttingDown(reply, turn.id, now?.status ?? turn.status);
        }
        if (!ac.signal.aborted) throw err;
        // Nobody is listening any more: like a closed stream, that cancels the turn when asked to.
        if (cancel_on_disconnect) await turns.cancel(turn.id);
        return;
      }
    }
    return reply.code(202).header('Location', links.self).send({ id: turn.id, status: turn.status, links });
  });

  app.get('/v1/turns', { config: { query: ListTurnsQuery } }, async (request) => {
    const q = ListTurnsQuery.parse(request.query);
    const paging = queryPaging('turns', q);
    const page = await turns.list({ agent_id: q.agent_id, status: q.status, limit: q.limit + 1, before: paging.after });
    const records: TurnRecord[] = page.slice(0, q.limit);
    const next_cursor = paging.next(page.length > q.limit ? records[records.length - 1].id : null);
    return { data: records.map((t) => withTurnLinks(t, services.streamTokens)), next_cursor };
  });

  app.get('/v1/turns/:id', async (request) => {
    const { id } = TurnIdParams.parse(request.params);
    const turn = await turns.get(id);
    if (!turn) throw notFound('turn', id);
    const pending_approvals = await services.approvals.pending(id, isFinished(turn));
    return { ...withTurnLinks(turn, services.streamTokens), pending_approvals };
  });

  app.get('/v1/turns/:id/events', { sse: 'manual', config: { query: EventsQuery } }, async (request, reply) => {
    const { id } = TurnIdParams.parse(request.params);
    EventsQuery.parse(request.query);
    if (!(await turns.get(id))) throw notFound('turn', id);
    if (!acceptsEventStream(request.headers.accept)) throw eventStreamNotAcceptable(`/v1/turns/${encodeURIComponent(id)}`, 'turn', request.headers.accept);
    const after = resumePoint(request, await services.eventLog.lastSeq(id));
    await streamTurn(services, reply, id, after);
  });

  app.post('/v1/turns/:id/cancel', async (request) => {
    const { id } = TurnIdParams.parse(request.params);
    CancelTurnBody.parse(request.body);
    const current = await turns.get(id);
    if (!current) throw notFound('turn', id);
    const owned = turnOwnedRefusal(current, 'cancel');
    if (owned) throw owned;
    const turn = await turns.cancel(id);
    if (!turn) throw notFound('turn', id);
    // The same shape as GET /v1/turns/{id}: a cancelled turn has no pending approvals left.
    return { ...withTurnLinks(turn, services.streamTokens), pending_approvals: await services.approvals.pending(id, isFinished(turn)) };
  });
};

