/**
 * Leaf module: what kind of turn a turn is, where it came from, and the stored (data-only) binding
 * of a workflow task turn. Shared by assembly, turns, schedules and workflows without cycles.
 */

/**
 * What kind of turn this is; creators refuse families that a kind must not have. `background_job`:
 * a turn of a background job (src/jobs/), with the job tool set.
 */
export type TurnKind = 'main' | 'scheduled' | 'workflow_task' | 'background_job';

/** Where a turn came from (stored on the turn record, shown by GET /v1/turns/{id}). */
export type TurnOrigin =
  | { type: 'api' }
  | { type: 'schedule'; schedule_id: string }
  | { type: 'workflow'; workflow_id: string; task_index: number }
  /** A background job's own turn (kind `background_job`), or a follow-up turn telling the owner its outcome (kind `main`). */
  | { type: 'background_job'; job_id: string };

/**
 * The stored binding of a workflow task turn (kind `workflow_task`): plain JSON kept with the turn,
 * from which the workflow service rebuilds the live binding (submit function, guard) whenever the
 * turn runs or resumes — no in-memory closure has to survive a restart.
 */
export interface StoredTaskBinding {
  workflowId: string;
  taskIndex: number;
  /** 1-based attempt this turn is. */
  attempt: number;
}

/** Statuses of a turn record. `waiting`: paused at a checkpoint, not claimable until enqueued again. */
export type TurnRecordStatus = 'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';
