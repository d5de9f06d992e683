/**
 * Turns that a service of their own drives (README.md "Double-texting" and "Steer a running turn"):
 * a workflow task's turn (kind `workflow_task`, driven by src/workflows/) and a background job's
 * turn (kind `background_job`, driven by src/jobs/). While such a turn is active only its owner
 * may continue, steer, interrupt or cancel it; clients go through the owner's routes. Approvals of
 * an owned turn stay with the turn (`POST /v1/turns/{id}/approvals`).
 */
import { DomainError } from '../errors.js';
import { HttpError } from '../http/errors.js';
import { isFinished } from './turn-outcome.js';
import type { TurnRecord } from './turn-service-types.js';

/** Kinds whose active turns belong to another service. */
const OWNED_KINDS = new Set(['workflow_task', 'background_job']);

/** Who owns an active turn and which routes a client uses instead of the turn's own. */
export interface TurnOwner {
  kind: 'workflow_task' | 'background_job';
  /** `{job_id}` for a job's turn, `{workflow_id}` for a workflow task's turn (from the turn's origin). */
  ids: { job_id: string } | { workflow_id: string };
  /** Human-readable owner, e.g. `background job 0190…`. */
  label: string;
  /** The route that steers the owner's work, or null when it takes no messages (workflows). */
  messageRoute: string | null;
  /** The route that stops the owner's work. */
  stopRoute: string;
  /** The route that reads the owner (its status and outcome). */
  readRoute: string;
}

/** The owner of `turn` while it is active (queued, running, waiting); undefined otherwise. */
export function activeTurnOwner(turn: TurnRecord): TurnOwner | undefined {
  return isFinished(turn) ? undefined : turnOwner(turn);
}

/**
 * The service `turn` belongs to by its kind — a background job or a workflow — active or finished;
 * undefined for a turn of its own (`main`). A conversation an owner runs stays its own: only a turn
 * of the same kind (the owner's next turn) may continue it.
 */
export function turnOwner(turn: TurnRecord): TurnOwner | undefined {
  if (!OWNED_KINDS.has(turn.kind)) return undefined;
  if (turn.kind === 'background_job') {
    const jobId = turn.origin.type === 'background_job' ? turn.origin.job_id : '{job_id}';
    return { kind: 'background_job', ids: { job_id: jobId }, label: `background job ${jobId}`, messageRoute: `POST /v1/jobs/${jobId}/messages`, stopRoute: `POST /v1/jobs/${jobId}/stop`, readRoute: `GET /v1/jobs/${jobId}` };
  }
  const workflowId = turn.origin.type === 'workflow' ? turn.origin.workflow_id : '{workflow_id}';
  return { kind: 'workflow_task', ids: { workflow_id: workflowId }, label: `a workflow task of workflow ${workflowId}`, messageRoute: null, stopRoute: `POST /v1/workflows/${workflowId}/cancel`, readRoute: `GET /v1/workflows/${workflowId}` };
}

/**
 * 409 `turn_owned` for `POST /v1/turns/{id}/messages` (`action` steer) or `POST
 * /v1/turns/{id}/cancel` (`action` cancel) on an active owned turn: the message names the owner
 * and the route to use instead; details `{turn_id, kind, status, job_id | workflow_id}`.
 * Undefined when the turn is not owned or has finished (the route then acts as for any turn).
 */
export function turnOwnedRefusal(turn: TurnRecord, action: 'steer' | 'cancel'): HttpError | undefined {
  const owner = activeTurnOwner(turn);
  if (!owner) return undefined;
  const instead =
    action === 'cancel'
      ? `stop it with ${owner.stopRoute} instead`
      : owner.messageRoute
        ? `send the message with ${owner.messageRoute} instead`
        : `a workflow task takes no messages: wait for the workflow, or cancel it with ${owner.stopRoute}`;
  const what = action === 'cancel' ? 'cancelled' : 'steered';
  return new HttpError(409, 'turn_owned', `turn ${turn.id} is run by ${owner.label} and cannot be ${what} directly; ${instead}`, {
    turn_id: turn.id,
    kind: turn.kind,
    status: turn.status,
    ...owner.ids,
  });
}

/**
 * 409 `turn_finished` for a steering message to a finished job or workflow task turn: like the
 * plain one (src/turns/inputs/turn-inputs.ts `turnFinished`) but pointing at the owner instead of a
 * continuation, which only the owner may start (`previous_turn_owned`). Details `{turn_id, status,
 * kind, job_id | workflow_id}`, no `hint`. Undefined for a turn of its own or one still active.
 */
export function finishedOwnedTurn(turn: TurnRecord): DomainError | undefined {
  const owner = isFinished(turn) ? turnOwner(turn) : undefined;
  if (!owner) return undefined;
  const instead = owner.messageRoute
    ? `read the job with ${owner.readRoute} and, while it is live, send the message with ${owner.messageRoute}`
    : `read the workflow with ${owner.readRoute}`;
  const who = owner.messageRoute ? `${owner.label}:` : `${owner.label}, which takes no messages:`;
  return new DomainError('turn_finished', `turn ${turn.id} has already finished (${turn.status}); it was run by ${who} ${instead}`, 409, {
    turn_id: turn.id,
    status: turn.status,
    kind: turn.kind,
    ...owner.ids,
  });
}
