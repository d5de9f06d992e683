/**
 * Max steps: after `maxSteps` rounds with function calls, tools are disabled and one last request
 * (`tool_choice: "none"`) asks for a final answer; that turn ends with stop reason `max_steps`.
 */
import type { TurnState } from '../turn-state.js';

/** Sent (role developer) when max_steps is reached, before the final request without tools. */
export const MAX_STEPS_INSTRUCTION =
  'You have used all tool steps available for this turn. Do not call any tool. Answer now with your final answer based on what you have.';

/** Decision after a tool round. */
export type MaxStepsDecision = { type: 'continue' } | { type: 'disable_tools'; instruction: string };

export function decideAfterToolRound(state: Pick<TurnState, 'toolRounds' | 'toolsDisabled'>, maxSteps: number): MaxStepsDecision {
  if (!state.toolsDisabled && state.toolRounds >= maxSteps) return { type: 'disable_tools', instruction: MAX_STEPS_INSTRUCTION };
  return { type: 'continue' };
}
