/**
 * The refusals of the approvals API (README "Tool approvals"), as {@link HttpError}s with stable
 * codes (documented in openapi.yaml).
 */
import { HttpError } from '../../http/errors.js';
import { escapeUnsafeChars, quoteForDisplay } from '../../unsafe-chars.js';
import type { StoredApproval } from '../../store/approval-store.js';
import { turnOwner } from '../turn-owner.js';
import type { TurnRecord } from '../turn-service-types.js';

/**
 * 404 `approval_not_found`: the turn never asked about this call. The call id (the client's, from
 * the path) is quoted by quoteForDisplay in the message and escaped in details; the turn exists.
 */
export function approvalNotFound(turnId: string, callId: string): HttpError {
  return new HttpError(404, 'approval_not_found', `turn ${turnId} has no approval for call ${quoteForDisplay(callId)}; pending calls are listed in pending_approvals of GET /v1/turns/${turnId}`, {
    turn_id: turnId,
    call_id: escapeUnsafeChars(callId),
  });
}

/**
 * 409 `approval_conflict`: another decision was recorded for the call first; `differs` names what
 * differs when the decision is the same (other edited arguments, another reason).
 */
export function approvalConflict(a: StoredApproval, differs?: 'arguments' | 'reason'): HttpError {
  const by = a.decided_by === 'timeout' ? `it timed out at ${a.decided_at}` : `a client decided at ${a.decided_at}`;
  const what = differs === 'arguments' ? ' with other arguments' : differs === 'reason' ? ' with another reason' : '';
  return new HttpError(409, 'approval_conflict', `call ${a.call_id} was already ${a.decision === 'approve' ? 'approved' : 'rejected'}${what} (${by}); a decision cannot be changed`, {
    call_id: a.call_id,
    decision: a.decision,
    decided_by: a.decided_by,
  });
}

/**
 * 409 `turn_finished`: the turn ended before the call was decided. For a turn of its own the
 * message says to continue with a new turn (`previous_turn_id`); details `{turn_id, call_id,
 * status}`. A background job's or workflow task's turn (`turn`'s kind) cannot be continued so
 * (`previous_turn_owned`): the message names the owner and what to do instead — message the job
 * while it is live, continue a finished one with `respawn_background_job`; read the workflow —
 * and details add `{kind, job_id | workflow_id}`.
 */
export function turnFinished(turnId: string, callId: string, status: string, turn?: TurnRecord): HttpError {
  const head = `turn ${turnId} has finished (status ${status}) before call ${callId} was decided`;
  const owner = turn ? turnOwner(turn) : undefined;
  if (!owner) {
    return new HttpError(409, 'turn_finished', `${head}; continue the conversation with a new turn (previous_turn_id)`, { turn_id: turnId, call_id: callId, status });
  }
  const instead =
    owner.kind === 'background_job'
      ? `read the job with ${owner.readRoute}; while it is live, tell it what to do about that call with ${owner.messageRoute}; once it has finished, continue its work with the respawn_background_job tool (a turn with the jobs tools)`
      : `read the workflow with ${owner.readRoute}; a workflow task takes no messages`;
  return new HttpError(409, 'turn_finished', `${head}; it was run by ${owner.label}, which only its owner continues (not a new turn with previous_turn_id): ${instead}`, {
    turn_id: turnId,
    call_id: callId,
    status,
    kind: turn!.kind,
    ...owner.ids,
  });
}
