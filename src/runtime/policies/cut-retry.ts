/**
 * Retry of a response cut by `max_output_tokens`: the cut response is dropped (its items may be
 * half-written calls) and the request is made once more with {@link CUT_RESPONSE_INSTRUCTION}
 * added as a developer message, so the model knows its previous answer was cut off. A second cut
 * ends the turn (see answerless-end.ts for how). Other incomplete reasons are not retried. Pure.
 */

/** Sent (role developer) with the retry of a response cut by max_output_tokens. */
export const CUT_RESPONSE_INSTRUCTION =
  'Your previous answer was cut off because it reached the output token limit, and it was discarded. ' +
  'Answer again, shorter: give the essential result first, or split the work into smaller steps ' +
  '(one tool call at a time; write long content to a file in parts).';

export type CutRetryDecision = { type: 'retry'; instruction: string } | { type: 'end'; stopReason: string };

/** Retry once (`alreadyRetried` false) when cut by max_output_tokens; else end with the reason. */
export function decideCutRetry(alreadyRetried: boolean, incompleteReason: string | undefined): CutRetryDecision {
  if (incompleteReason === 'max_output_tokens' && !alreadyRetried) return { type: 'retry', instruction: CUT_RESPONSE_INSTRUCTION };
  return { type: 'end', stopReason: incompleteReason ?? 'incomplete' };
}
