/**
 * Resume of a claimed turn from its stored checkpoint (pure decisions + reading the event log):
 * - an unreadable checkpoint (corrupt JSON or items, unknown schema version) → `resume_failed`;
 * - a turn whose same step was cut by a crash `maxCrashes` times → `crash_loop`;
 * - otherwise the state, plus what the event log recorded for the calls of a pending round.
 */
import type { PriorCall } from '../runtime/round-types.js';
import { parseTurnState, type TurnState } from '../runtime/turn-state.js';
import type { TurnEvent } from '../runtime/events.js';
import type { StoredCheckpoint, TurnCheckpointStore } from '../store/checkpoint-store.js';
import type { EventLog } from '../store/event-log.js';

export type ResumeDecision =
  | { type: 'resume'; state: TurnState; priorCalls?: Map<string, PriorCall> }
  | { type: 'fail'; error: { code: 'resume_failed' | 'crash_loop'; message: string } };

/** Read the checkpoint's state and items; `resume_failed` when either cannot be read. */
export async function loadState(store: TurnCheckpointStore, turnId: string, cp: StoredCheckpoint): Promise<ResumeDecision> {
  try {
    const items = await store.items(turnId, cp.itemCount);
    if (items.length !== cp.itemCount) throw new Error(`the checkpoint expects ${cp.itemCount} transcript items, ${items.length} are stored`);
    return { type: 'resume', state: parseTurnState(cp.state, items) };
  } catch (err) {
    return { type: 'fail', error: { code: 'resume_failed', message: `the turn's checkpoint cannot be read: ${(err as Error).message}` } };
  }
}

/** Count a crash of the current step; `crash_loop` once it reached `maxCrashes`. Mutates `state`. */
export function countCrash(state: TurnState, maxCrashes: number): ResumeDecision | undefined {
  const count = state.crashes?.step === state.steps ? state.crashes.count + 1 : 1;
  state.crashes = { step: state.steps, count };
  if (count < maxCrashes) return undefined;
  return {
    type: 'fail',
    // Numbered as `turn.resumed` numbers it (`from_step`: model requests already done).
    error: { code: 'crash_loop', message: `the service crashed ${count} times while this turn ran from step ${state.steps} (turn.resumed from_step ${state.steps}: ${state.steps} model request${state.steps === 1 ? '' : 's'} done); it is not resumed again` },
  };
}

/** What the event log recorded, after `afterSeq`, for the function/custom calls of a pending round. */
export async function priorCallsFromLog(log: EventLog<TurnEvent>, turnId: string, afterSeq: number): Promise<Map<string, PriorCall>> {
  const calls = new Map<string, PriorCall>();
  for (let after = afterSeq; ; ) {
    const page = await log.read(turnId, after, 1000);
    for (const { event } of page) {
      if (event.type === 'tool.started' && !calls.has(event.call_id)) calls.set(event.call_id, { state: 'started' });
      if (event.type === 'tool.completed') {
        const ends = event.ends_turn;
        calls.set(event.call_id, {
          state: 'completed',
          output: event.output,
          isError: event.is_error,
          ...(ends ? { endsTurn: { stopReason: ends.stop_reason, ...(ends.output_text !== undefined ? { outputText: ends.output_text } : {}) } } : {}),
        });
      }
    }
    if (page.length < 1000) return calls;
    after = page[page.length - 1].seq;
  }
}
