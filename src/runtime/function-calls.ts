/**
 * Normalization of one response's (neutral, src/model/port.ts) output items before the loop keeps
 * them in the transcript and dispatches their calls. A single odd item never fails a turn or
 * corrupts its history:
 *
 * - `function_call.arguments` sent as a JSON object or array (some OpenAI-compatible servers do
 *   this) is serialized once with `JSON.stringify` (an adapter may already have done so); the
 *   transcript item carries that string, so history and dispatch agree. `null`/absent arguments
 *   become `''` (the repair ladder reads it as `{}`).
 * - A `function_call` without a usable `call_id` (absent, not a string, empty) gets a unique
 *   synthetic id ({@link SYNTHETIC_CALL_ID_PREFIX} + random hex) in the transcript item and the
 *   dispatched call, so its output pairs with it and a continuation never replays an undefined id.
 * - The same holds for a `custom_tool_call` (answered with an unknown-tool error).
 * - A `function_call` without a string `name` is still answered (the dispatcher reports an unknown
 *   tool), under the name {@link UNNAMED_TOOL}.
 * - An item that is not an object with a string `type` (also a `provider_item` wrapping such a
 *   thing) cannot be sent back to any provider: it is dropped from the transcript and reported in
 *   `skipped` (the loop emits a `turn.warning`).
 */
import { randomBytes } from 'node:crypto';
import type { FunctionCallRequest } from './dispatch.js';
import type { TranscriptItem } from './turn-types.js';

/** Prefix of call ids the service made up for calls that came without one. */
export const SYNTHETIC_CALL_ID_PREFIX = 'call_svc_';
/** Name used for a function call that came without a name (dispatch answers "unknown tool"). */
export const UNNAMED_TOOL = '(unnamed)';

/** A unique call id for a call without one: `call_svc_` + 24 hex characters. */
export function syntheticCallId(): string {
  return `${SYNTHETIC_CALL_ID_PREFIX}${randomBytes(12).toString('hex')}`;
}

/** Arguments as the text the dispatcher parses: strings unchanged, anything else serialized once. */
export function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

export interface NormalizedOutput {
  /** The items to keep in the transcript, in order (function calls normalized). */
  items: TranscriptItem[];
  /** The function calls to dispatch, in order. */
  functionCalls: FunctionCallRequest[];
  /** Items dropped because they cannot be sent back; one human line each. */
  skipped: string[];
  /** Function calls that came without a usable call_id (now carrying a synthetic one). */
  syntheticIds: number;
}

/**
 * Normalize the output items of one response (see the module doc). Pure apart from the random
 * synthetic ids; never throws.
 */
export function normalizeOutputItems(output: readonly unknown[]): NormalizedOutput {
  const result: NormalizedOutput = { items: [], functionCalls: [], skipped: [], syntheticIds: 0 };
  output.forEach((raw, index) => {
    if (raw === null || typeof raw !== 'object' || typeof (raw as { type?: unknown }).type !== 'string') {
      result.skipped.push(`output item #${index} has no type (got ${raw === null ? 'null' : typeof raw}); it was ignored`);
      return;
    }
    const item = raw as Record<string, unknown>;
    if (item.type === 'provider_item') {
      const inner = item.item as { type?: unknown } | null | undefined;
      if (inner === null || typeof inner !== 'object' || typeof inner.type !== 'string') {
        result.skipped.push(`output item #${index} has no type; it was ignored`);
        return;
      }
    }
    if (item.type === 'custom_tool_call' && (typeof item.call_id !== 'string' || item.call_id === '')) {
      result.items.push({ ...item, call_id: syntheticCallId() } as unknown as TranscriptItem);
      result.syntheticIds++;
      return;
    }
    if (item.type !== 'function_call') {
      result.items.push(item as unknown as TranscriptItem);
      return;
    }
    let callId = item.call_id;
    if (typeof callId !== 'string' || callId === '') {
      callId = syntheticCallId();
      result.syntheticIds++;
    }
    const name = typeof item.name === 'string' && item.name !== '' ? item.name : UNNAMED_TOOL;
    const args = argumentsText(item.arguments);
    const namespace = typeof item.namespace === 'string' && item.namespace !== '' ? item.namespace : undefined;
    result.items.push({ ...item, call_id: callId, name, arguments: args } as unknown as TranscriptItem);
    result.functionCalls.push({ callId: callId as string, name, arguments: args, ...(namespace ? { namespace } : {}) });
  });
  return result;
}
