/**
 * Steering a turn (README.md "Steer a running turn"):
 * - POST /v1/turns/{id}/messages `{content}` (or `{message}`, the name the job route once took:
 *   src/turns/request-schemas.ts SteeringMessageBody) on a queued, running or waiting turn → 202
 *   `{message_id, turn_id, seq, position, status: "queued", created_at}` (`seq`: the SSE id of its
 *   `input.queued` event, usable as `Last-Event-ID`; `position`: its place among the turn's
 *   messages, src/turns/inputs/turn-inputs.ts QueuedInput); the message is stored at once
 *   (event `input.queued`) and added to the transcript as a user message before the turn's next
 *   model request (event `input.applied`). A finished turn → 409 `turn_finished` (details carry
 *   `hint.previous_turn_id`); unknown turn → 404.
 * - An active workflow task or background job turn → 409 `turn_owned` naming the route to use
 *   instead (src/turns/turn-owner.ts); the job's own messages go in through its service. A
 *   finished one → 409 `turn_finished` naming the owner (details `{turn_id, status, kind,
 *   job_id | workflow_id}`, no continuation hint: only the owner continues it).
 */
import { bodyHash, clientIdempotencyKey, markReplayed } from '../src/http/idempotency.js';
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { SteeringMessageBody } from '../src/turns/request-schemas.js';
import { finishedOwnedTurn, turnOwnedRefusal } from '../src/turns/turn-owner.js';
import { TurnIdParams } from './turn-schemas.js';

/** `{content}` or its alias `{message}`, parsed to `{content}` (src/turns/request-schemas.ts SteeringMessageBody). */
export const SteerTurnBody = SteeringMessageBody;

export const turnMessageRoutes: RoutePlugin = async (app, { services }) => {
  app.post('/v1/turns/:id/messages', async (request, reply) => {
    const { id } = TurnIdParams.parse(request.params);
    const body = SteerTurnBody.parse(request.body ?? undefined);
    const turn = await services.turns.get(id);
    const owned = turn && turnOwnedRefusal(turn, 'steer');
    if (owned) throw owned;
    const key = clientIdempotencyKey(request);
    const { value: queued, replayed } = await services.inputs.sendOnce(id, body.content, 'api', key, bodyHash({ turn_id: id, content: body.content })).catch(async (err: unknown) => {
      // A finished job or workflow turn: point at its owner, not at a continuation it would refuse.
      const now = (err as { code?: string }).code === 'turn_finished' ? await services.turns.get(id) : undefined;
      throw (now && finishedOwnedTurn(now)) ?? err;
    });
    if (replayed) markReplayed(reply);
    return reply.code(202).header('Location', `/v1/turns/${encodeURIComponent(id)}`).send(queued);
  });
};
