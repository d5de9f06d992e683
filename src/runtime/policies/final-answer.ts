/**
 * Final answer: a response with text and no calls ends the turn (`stop`, or `max_steps` after
 * tools were disabled) unless a final-answer guard asks for one more round with an instruction,
 * optionally restricting the offered tools. The guard is asked at most once unless its verdict
 * says `repeatable` (then at most `maxSteps` times); a throwing guard accepts the answer.
 */
import type { TurnState } from '../turn-state.js';
import type { FinalAnswerGuard, FinalAnswerGuardVerdict } from '../turn-types.js';

export type FinalAnswerDecision =
  | { type: 'accept'; stopReason: string }
  | { type: 'instruct'; instruction: string; onlyTools?: string[]; guardDone: boolean };

export async function decideFinalAnswer(
  state: Pick<TurnState, 'guard' | 'toolsDisabled' | 'steps'>,
  text: string,
  guard: FinalAnswerGuard | undefined,
  maxSteps: number,
): Promise<FinalAnswerDecision> {
  const accept: FinalAnswerDecision = { type: 'accept', stopReason: state.toolsDisabled ? 'max_steps' : 'stop' };
  if (!guard || state.guard.done || state.toolsDisabled) return accept;
  let verdict: FinalAnswerGuardVerdict = null;
  try {
    verdict = await guard({ outputText: text, steps: state.steps });
  } catch {
    verdict = null;
  }
  if (!verdict) return accept;
  const calls = state.guard.calls + 1;
  const guardDone = verdict.repeatable !== true || calls >= maxSteps;
  return { type: 'instruct', instruction: verdict.instruction, ...(verdict.onlyTools ? { onlyTools: verdict.onlyTools } : {}), guardDone };
}
