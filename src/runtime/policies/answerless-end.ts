/**
 * Honest endings: a turn that ends without any answer text because the model's output was cut
 * (`max_output_tokens`, or another incomplete reason such as `content_filter`) or was empty
 * (`empty_response`; `max_steps` when it is the final answer after the step limit) ends `turn.failed` with that code — a client cannot
 * mistake it for a successful answer. A turn that ends with text (even cut text, stop reason
 * `max_output_tokens`) or that a tool ended on purpose (`terminated`) stays `turn.completed`.
 * See README.md "Turn endings".
 */

/** Stop reasons that are success when there is text and failure when there is none. */
const NEEDS_TEXT = new Set(['stop', 'max_steps', 'max_output_tokens', 'empty_response', 'content_filter', 'incomplete']);

const MESSAGES: Record<string, string> = {
  max_output_tokens:
    'the model\'s answer was cut off by the output token limit (max_output_tokens) again after a retry asking for a shorter answer; no answer text was produced. Raise the limit or ask for less at once.',
  empty_response: 'the model returned an empty response (no text and no tool calls), also after being asked to continue.',
  max_steps:
    'the turn reached its step limit (max_steps) and the model gave no answer text when asked for its final answer without tools. Raise max_steps, or ask for less in one turn.',
  content_filter: 'the model\'s response was stopped by the provider\'s content filter before any answer text.',
};

export type EndingDecision =
  | { type: 'completed'; stopReason: string }
  | { type: 'failed'; error: { code: string; message: string } };

/**
 * How a turn that stops with `stopReason` and answer `text` ends.
 * @returns `completed` with the stop reason, or `failed` with `{code, message}` where `code` is
 *   `max_output_tokens`, `empty_response`, `max_steps` (no text in the final answer after the
 *   step limit) or the incomplete reason.
 */
export function decideEnding(stopReason: string, text: string): EndingDecision {
  if (text !== '' || !NEEDS_TEXT.has(stopReason)) return { type: 'completed', stopReason };
  const code = stopReason === 'stop' ? 'empty_response' : stopReason;
  return { type: 'failed', error: { code, message: MESSAGES[code] ?? `the model response ended incomplete (${code}) without any answer text.` } };
}
