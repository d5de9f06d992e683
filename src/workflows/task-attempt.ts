/**
 * One attempt of one workflow task: start an ordinary turn of kind `workflow_task` (its own record
 * and event stream) with the task's binding and final-answer guard, wait for it to end, and
 * classify the outcome:
 * - a result was accepted by submit_result → `succeeded`;
 * - the workflow is being cancelled → `cancelled`;
 * - the turn reached its step limit (MAX_STEPS tool rounds: `turn.failed` `max_steps`, or an
 *   answer with stop reason `max_steps`) without an accepted submission → `max_steps`, not
 *   retryable: it is the task's own failure, and another attempt would most likely spend the same
 *   rounds (as `schema_noncompliance`);
 * - the turn failed otherwise (model or infrastructure error) → `failed`, retryable;
 * - the turn ended without an accepted submission after the one repair → `schema_noncompliance`
 *   (not retryable) when the model produced any text, else `empty_output` (retryable);
 * - the task turn itself was cancelled (POST /v1/turns/{id}/cancel) → `turn_cancelled`, not retryable.
 */
import type { FinalAnswerGuard } from '../runtime/turn-types.js';
import type { TurnRecord, TurnService } from '../turns/turn-service-types.js';
import { REPAIR_INSTRUCTION } from './task-prompt.js';
import type { TaskError } from './types.js';

export type AttemptOutcome =
  | { kind: 'succeeded' }
  | { kind: 'cancelled' }
  | { kind: 'interrupted' }
  | { kind: 'failed'; error: TaskError; retryable: boolean; turnId: string | null };

export interface AttemptParams {
  turns: TurnService;
  input: Parameters<TurnService['create']>[0];
  workflowId: string;
  taskIndex: number;
  /** 1-based attempt number (stored with the turn, from which its binding is rebuilt). */
  attempt: number;
  /** True when the turn's final-answer guard saw the model answer in prose. */
  sawText: (turnId: string) => boolean;
  /** Called with the new turn's id as soon as it exists (before the turn can finish). */
  onTurnCreated: (turnId: string) => void | Promise<void>;
  /** True once an accepted result is stored for this task. */
  succeeded: () => boolean | Promise<boolean>;
  /** True while the workflow is being cancelled. */
  cancelling: () => boolean;
  /** True while the service shuts down (the task is resumed on the next start). */
  stopping: () => boolean;
}

/** The name of the only tool offered with the repair instruction. */
const SUBMIT_RESULT = 'submit_result';

/**
 * A guard that sends {@link REPAIR_INSTRUCTION} once (only submit_result offered) and remembers
 * whether the model ever produced text.
 */
export function createSubmitGuard(): { guard: FinalAnswerGuard; sawText: () => boolean } {
  let used = false;
  let sawText = false;
  const guard: FinalAnswerGuard = ({ outputText }) => {
    if (outputText.trim() !== '') sawText = true;
    if (used) return null;
    used = true;
    return { instruction: REPAIR_INSTRUCTION, onlyTools: [SUBMIT_RESULT] };
  };
  return { guard, sawText: () => sawText };
}

/** Run one attempt; never throws (a failure to even create the turn is a retryable failure). */
export async function runTaskAttempt(p: AttemptParams): Promise<AttemptOutcome> {
  let turn: TurnRecord;
  try {
    turn = await p.turns.create(p.input, {
      kind: 'workflow_task',
      origin: { type: 'workflow', workflow_id: p.workflowId, task_index: p.taskIndex },
      workflowTask: { workflowId: p.workflowId, taskIndex: p.taskIndex, attempt: p.attempt },
    });
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown };
    return {
      kind: 'failed',
      error: { code: typeof e.code === 'string' ? e.code : 'turn_create_failed', message: String(e.message ?? err) },
      retryable: true,
      turnId: null,
    };
  }
  await p.onTurnCreated(turn.id);
  return awaitTaskTurn(p, turn.id);
}

/**
 * Wait for an attempt's turn (new, or resumed after a restart) and classify how it ended; never
 * throws.
 */
export async function awaitTaskTurn(
  p: Pick<AttemptParams, 'turns' | 'succeeded' | 'cancelling' | 'stopping' | 'sawText'>,
  turnId: string,
): Promise<AttemptOutcome> {
  const turn = { id: turnId };
  if (p.cancelling()) await p.turns.cancel(turn.id);
  let rec: TurnRecord;
  try {
    rec = await p.turns.waitForTerminal(turn.id);
  } catch (err) {
    return { kind: 'failed', error: { code: 'internal_error', message: String((err as Error).message ?? err) }, retryable: true, turnId: turn.id };
  }
  if (await p.succeeded()) return { kind: 'succeeded' };
  if (p.stopping()) return { kind: 'interrupted' };
  if (p.cancelling()) return { kind: 'cancelled' };
  if (rec.status === 'cancelled') {
    return { kind: 'failed', error: { code: 'turn_cancelled', message: `task turn ${turn.id} was cancelled` }, retryable: false, turnId: turn.id };
  }
  if ((rec.status === 'failed' && rec.error?.code === 'max_steps') || (rec.status === 'completed' && rec.stop_reason === 'max_steps')) {
    return { kind: 'failed', error: { ...MAX_STEPS_ERROR }, retryable: false, turnId: turn.id };
  }
  // A turn that ended empty fails with `empty_response` (README "Turn endings"); for a task that is
  // the `empty_output` case below.
  if (rec.status === 'failed' && rec.error?.code !== 'empty_response') {
    const error = rec.error ?? { code: 'failed', message: 'the task turn failed' };
    return { kind: 'failed', error, retryable: true, turnId: turn.id };
  }
  const text = p.sawText(turn.id) || (rec.output_text ?? '').trim() !== '';
  if (text) {
    return {
      kind: 'failed',
      error: {
        code: 'schema_noncompliance',
        message: 'the model answered in prose and did not submit an accepted result with submit_result, even after one repair instruction',
      },
      retryable: false,
      turnId: turn.id,
    };
  }
  return {
    kind: 'failed',
    error: { code: 'empty_output', message: 'the model produced no text and no accepted submit_result' },
    retryable: true,
    turnId: turn.id,
  };
}

/** The task error of a task turn that used all its tool rounds (MAX_STEPS) without an accepted submission. */
export const MAX_STEPS_ERROR: TaskError = {
  code: 'max_steps',
  message: 'the task turn reached its step limit (MAX_STEPS tool rounds) without an accepted submit_result; not retried, since another attempt would most likely spend the same rounds: make the task smaller or its result_schema easier to meet, or raise MAX_STEPS',
};
