/**
 * The seam through which the turn service rebuilds the live binding of a workflow task turn
 * (submit function, final-answer guard) from the data stored with the turn, each time the turn
 * runs — first run or resume after a restart. The workflow service provides it.
 */
import type { WorkflowTaskBinding } from '../assembly/context.js';
import type { FinalAnswerGuard } from '../runtime/turn-types.js';
import type { StoredTaskBinding } from './turn-kinds.js';

/** A live binding: what the submit_result tool and the loop's guard need. */
export interface LiveTaskBinding {
  workflowTask: WorkflowTaskBinding;
  finalAnswerGuard?: FinalAnswerGuard;
}

/**
 * Rebuild the live binding of turn `turnId`. Undefined when the task no longer accepts this turn
 * (deleted, finished, another attempt): the turn then fails with `binding_unavailable`.
 */
export type TaskBindingResolver = (turnId: string, binding: StoredTaskBinding) => Promise<LiveTaskBinding | undefined>;
