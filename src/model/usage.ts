/**
 * Token counts as a provider reports them (Responses `usage.input_tokens`/`output_tokens`, Chat
 * Completions `usage.prompt_tokens`/`completion_tokens`) → {@link ModelUsage}, or undefined when
 * they are not both counts. Undefined is unknown usage (the turn's `usage` becomes null), as when
 * the server sent none: a garbled report (`{"prompt_tokens": null, "completion_tokens": "abc"}`,
 * a negative or fractional number, one of the two missing) is never read as zeros.
 */
import type { ModelUsage } from './port.js';

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * The usage of one response from its two reported counts.
 * @param input the input (prompt) token count as received (any JSON value).
 * @param output the output (completion) token count as received.
 * @returns `{input_tokens, output_tokens}` when both are non-negative integers, else undefined.
 */
export function tokenUsage(input: unknown, output: unknown): ModelUsage | undefined {
  return isCount(input) && isCount(output) ? { input_tokens: input, output_tokens: output } : undefined;
}
