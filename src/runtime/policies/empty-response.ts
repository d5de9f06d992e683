/**
 * Empty response: a completed response with no text and no calls after tool use gets one nudge
 * (a developer message); otherwise the turn ends with `empty_response` (or `max_steps` once tools
 * were disabled).
 */
import type { TurnState } from '../turn-state.js';

/** Sent (role developer) once when the model returned nothing after tool use. */
export const EMPTY_RESPONSE_NUDGE =
  'Your last response was empty. Continue: call a tool if you still need one, or give your final answer to the user.';

export type EmptyResponseDecision = { type: 'nudge'; instruction: string } | { type: 'end'; stopReason: string };

export function decideEmptyResponse(state: Pick<TurnState, 'usedTools' | 'nudged' | 'toolsDisabled'>): EmptyResponseDecision {
  if (state.usedTools && !state.nudged && !state.toolsDisabled) return { type: 'nudge', instruction: EMPTY_RESPONSE_NUDGE };
  return { type: 'end', stopReason: state.toolsDisabled ? 'max_steps' : 'empty_response' };
}
