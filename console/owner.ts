/**
 * Turns another service drives (README.md "Steer a running turn"): while a background job's turn
 * (kind `background_job`) or a workflow task's turn (kind `workflow_task`) is active, the service
 * answers 409 `turn_owned` to its own message and cancel routes, so the console offers neither and
 * says where the controls are instead.
 */
import type { Turn } from './api.js';

/**
 * The note shown instead of the message box and the cancel button for an active owned `turn`, or
 * null when the turn is not owned (kind `main` / `scheduled`, or unknown).
 */
export function turnOwnerNote(turn: Pick<Turn, 'kind' | 'origin'>): string | null {
  const origin = turn.origin ?? {};
  if (turn.kind === 'background_job') {
    const job = typeof origin.job_id === 'string' ? ` ${origin.job_id}` : '';
    return `This turn is run by background job${job}: send it messages or stop it from the Background jobs panel (the job's own controls), not here.`;
  }
  if (turn.kind === 'workflow_task') {
    const wf = typeof origin.workflow_id === 'string' ? origin.workflow_id : '{workflow_id}';
    return `This turn is a task of workflow ${wf}: it takes no messages, and only cancelling the workflow (POST /v1/workflows/${wf}/cancel) stops it.`;
  }
  return null;
}
