/**
 * Honest endings: a turn that ends without any answer text because the model's output was cut
 * (`max_output_tokens`, or another incomplete reason such as `content_filter`) or was empty
 * (`empty_response`; `max_steps` when it is the final answer after the step limit) ends `turn.failed` with that code — a client cannot
 * mistake it for a successful answer. A turn that ends with text (even cut text, stop reason
 * `max_output_tokens`) or that a tool ended on purpose (`terminated`) stays `turn.completed`.
 * See README.md "Turn endings".
 */
import { namesForDisplay } from '../../unsafe-chars.js';

/** Stop reasons that are success when there is text and failure when there is none. */
const NEEDS_TEXT = new Set(['stop', 'max_steps', 'max_output_tokens', 'empty_response', 'content_filter', 'incomplete']);

const MESSAGES: Record<string, string> = {
  max_output_tokens:
    'the model\'s answer was cut off by the output token limit (max_output_tokens) again after a retry asking for a shorter answer; no answer text was produced. Raise the limit or ask for less at once.',
  max_steps:
    'the turn reached its step limit (max_steps) and the model gave no answer text when asked for its final answer without tools. Raise max_steps, or ask for less in one turn.',
  content_filter: 'the model\'s response was stopped by the provider\'s content filter before any answer text.',
};

export type EndingDecision =
  | { type: 'completed'; stopReason: string }
  | { type: 'failed'; error: { code: string; message: string } };

/** What the turn did before it ended, for a message that says what happened. */
export interface EndingFacts {
  /** Model requests the turn made (its `steps`). */
  requests: number;
  /** Whether the one nudge to continue after an empty response was sent (policies/empty-response.ts). */
  nudged: boolean;
  /** The names of the calls the last answer held instead of text, to tools the request did not offer (not run). */
  ignoredTools?: readonly string[];
}

const EMPTY = 'the model returned an empty response (no text and no tool calls)';

/**
 * The `empty_response` message: how many model requests the turn made and whether the model had
 * been asked to continue. E.g. `… to the turn's only model request; it was not asked to continue
 * (that nudge follows only an empty response after tool use).` or `… again after being asked to
 * continue (3 model requests).` Without facts: the bare statement.
 */
function emptyMessage(facts: EndingFacts | undefined): string {
  if (!facts) return `${EMPTY}.`;
  if (facts.ignoredTools?.length) return onlyIgnoredCallsMessage(facts.ignoredTools);
  const n = facts.requests;
  if (facts.nudged) return `${EMPTY} again after being asked to continue (${n} model request${n === 1 ? '' : 's'}).`;
  const which = n <= 1 ? "the turn's only model request" : `the last of ${n} model requests`;
  return `${EMPTY} to ${which}; it was not asked to continue (that nudge follows only an empty response after tool use).`;
}

/**
 * The `empty_response` message for an answer of only calls to tools the request did not offer,
 * naming them (at most 5, each clipped: src/unsafe-chars.ts namesForDisplay) and what to do —
 * `the model answered only with calls to tools this turn did not offer ("todo"), which were not
 * run, and no text: give the turn the tools it calls (the request's "tools" families), or ask for
 * an answer in text in the instructions.`
 */
function onlyIgnoredCallsMessage(names: readonly string[]): string {
  return `the model answered only with calls to tools this turn did not offer (${namesForDisplay(names)}), which were not run, and no text: give the turn the tools it calls (the request's "tools" families), or ask for an answer in text in the instructions.`;
}

/**
 * How a turn that stops with `stopReason` and answer `text` ends.
 * @param facts what the turn did (requests made, nudge sent), for the `empty_response` message.
 * @returns `completed` with the stop reason, or `failed` with `{code, message}` where `code` is
 *   `max_output_tokens`, `empty_response`, `max_steps` (no text in the final answer after the
 *   step limit) or the incomplete reason.
 */
export function decideEnding(stopReason: string, text: string, facts?: EndingFacts): EndingDecision {
  if (text !== '' || !NEEDS_TEXT.has(stopReason)) return { type: 'completed', stopReason };
  const code = stopReason === 'stop' ? 'empty_response' : stopReason;
  const message = code === 'empty_response' ? emptyMessage(facts) : (MESSAGES[code] ?? `the model response ended incomplete (${code}) without any answer text.`);
  return { type: 'failed', error: { code, message } };
}
