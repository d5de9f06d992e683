/**
 * Max steps: after `maxSteps` rounds with function calls, tools are disabled and one last request
 * (`tool_choice: "none"`) asks for a final answer; that turn ends with stop reason `max_steps`
 * when the answer has text, else `turn.failed` with code `max_steps` (policies/answerless-end.ts).
 * Calls in that last answer are not run and not kept in the transcript ({@link ignoredCalls}).
 * See README.md "Turn endings".
 */
import type { TranscriptItem } from '../../model/port.js';
import type { TurnState } from '../turn-state.js';
import { namesForDisplay } from '../../unsafe-chars.js';

/** Sent (role developer) when max_steps is reached, before the final request without tools. */
export const MAX_STEPS_INSTRUCTION =
  'You have used all tool steps available for this turn. Do not call any tool. Answer now with your final answer based on what you have.';

/** Decision after a tool round. */
export type MaxStepsDecision = { type: 'continue' } | { type: 'disable_tools'; instruction: string };

export function decideAfterToolRound(state: Pick<TurnState, 'toolRounds' | 'toolsDisabled'>, maxSteps: number): MaxStepsDecision {
  if (!state.toolsDisabled && state.toolRounds >= maxSteps) return { type: 'disable_tools', instruction: MAX_STEPS_INSTRUCTION };
  return { type: 'continue' };
}

/** What {@link ignoredCalls} leaves of a response and how the dropped calls are reported. */
export interface IgnoredCalls {
  /** The response's items without its calls (messages, reasoning, hosted items). */
  kept: TranscriptItem[];
  /** `call_id`s of the dropped calls, in the model's order. */
  callIds: string[];
  /** The names of the tools called, in order. */
  toolNames: string[];
  /** The `model.warning` message naming the tools called (bounded: src/unsafe-chars.ts namesForDisplay). */
  message: string;
}

/**
 * Drop the calls (`function_call`, `custom_tool_call`, client `tool_search_call`) of an answer to
 * a request that offered no tools (the final request after max steps): they are never run, and
 * keeping them without outputs would make the transcript invalid for the next request.
 */
export function ignoredCalls(items: readonly TranscriptItem[]): IgnoredCalls {
  const kept: TranscriptItem[] = [];
  const callIds: string[] = [];
  const names: string[] = [];
  for (const i of items) {
    if (i.type === 'function_call' || i.type === 'custom_tool_call') {
      callIds.push(i.call_id);
      names.push(i.type === 'function_call' && i.namespace ? `${i.namespace}.${i.name}` : i.name);
    } else if (i.type === 'tool_search_call' && i.execution === 'client') {
      if (i.call_id) callIds.push(i.call_id);
      names.push('tool_search');
    } else kept.push(i);
  }
  const message = `The model called ${namesForDisplay(names)} in its final answer after the step limit (max_steps), when tool calls were no longer allowed; the calls were not run.`;
  return { kept, callIds, toolNames: names, message };
}
