/**
 * The refusals of the approvals API (README "Tool approvals"), as {@link HttpError}s with stable
 * codes (documented in openapi.yaml).
 */
import { HttpError } from '../../http/errors.js';
import type { StoredApproval } from '../../store/approval-store.js';

/** 404 `approval_not_found`: the turn never asked about this call. */
export function approvalNotFound(turnId: string, callId: string): HttpError {
  return new HttpError(404, 'approval_not_found', `turn ${turnId} has no approval for call ${callId}; pending calls are listed in pending_approvals of GET /v1/turns/${turnId}`, { turn_id: turnId, call_id: callId });
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

/** 409 `turn_finished`: the turn ended before the call was decided. */
export function turnFinished(turnId: string, callId: string, status: string): HttpError {
  return new HttpError(409, 'turn_finished', `turn ${turnId} has finished (status ${status}) before call ${callId} was decided; continue the conversation with a new turn (previous_turn_id)`, {
    turn_id: turnId,
    call_id: callId,
    status,
  });
}
