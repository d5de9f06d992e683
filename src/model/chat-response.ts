/**
 * Chat Completions adapter, responses: an assembled answer (chat-assembly.ts) → the neutral
 * closing events of one response (`item.done`s, an optional `warning`, `response.done`).
 *
 * Rules:
 * - `finish_reason` decides the status, not the presence of calls: `length` → `incomplete`
 *   (`max_output_tokens`) and `content_filter` → `incomplete` (`content_filter`), both without their
 *   calls (a call cut at the output limit is half-written: it is dropped and never runs; the runtime
 *   retries a `max_output_tokens` response). Anything else (`stop`, `tool_calls`, `eos`, …) is
 *   `completed`: calls present are run even with `stop`; `tool_calls` without calls is a plain
 *   answer.
 * - No `finish_reason` at all: a stream that still ended with `data: [DONE]` was finished by the
 *   server (some servers and proxies never send a `finish_reason`, only content, a usage chunk and
 *   `[DONE]`) and is read as `tool_calls` when calls were streamed, else `stop` — `completed`, its
 *   usage kept. One that ended without `[DONE]` was cut: no `response.done` is produced and the
 *   runtime reports `stream_interrupted`.
 * - Call ids: a call without an id, or with an id already used in the transcript or earlier in the
 *   same answer (servers that number calls per response reuse them every round), gets `call_<n>`
 *   with the smallest n not used in the transcript — unique per turn and the same on a replay.
 *   Calls without a name are dropped.
 * - A flattened namespaced name (`<namespace>__<name>`) is mapped back to namespace + name.
 * - An answer to a request that offered no tools has its calls dropped, reported in one
 *   `warning {code: "tool_calls_ignored", call_ids, tool_names}` (the message names them, bounded).
 * - Usage only when the server sent it (`response.done.usage` undefined means unknown, not zero).
 * - Items, in order: reasoning (text in `summary[0]`, field name in `providerData`), the answer
 *   text, the calls.
 */
import type { AssembledAnswer } from './chat-assembly.js';
import { REASONING_FIELD_KEY } from './chat-messages.js';
import type { ChatToolSet } from './chat-tools.js';
import type { ModelStreamEvent, TranscriptItem } from './port.js';
import { namesForDisplay } from '../unsafe-chars.js';

export interface ChatResponseContext {
  /** Every `call_id` already in the request's transcript. */
  historyCallIds: ReadonlySet<string>;
  tools: ChatToolSet;
  toolsOffered: boolean;
  /** Whether the stream ended with the `[DONE]` sentinel (rather than the body just ending). */
  endedWithDone?: boolean;
}

/** The `call_id`s of a transcript's calls (function and custom). */
export function transcriptCallIds(input: TranscriptItem[]): Set<string> {
  const ids = new Set<string>();
  for (const it of input) if (it.type === 'function_call' || it.type === 'custom_tool_call') ids.add(it.call_id);
  return ids;
}

function assignIds(calls: AssembledAnswer['calls'], history: ReadonlySet<string>): string[] {
  const used = new Set(history);
  let n = 1;
  return calls.map((c) => {
    let id = c.id;
    if (!id || used.has(id)) {
      while (used.has(`call_${n}`)) n++;
      id = `call_${n}`;
    }
    used.add(id);
    return id;
  });
}

/**
 * The closing events of one response: `item.done`s, an optional `warning`, then `response.done`;
 * none at all (an empty list) for a cut stream — no `finish_reason` and no `[DONE]`. See the module
 * doc for the rules.
 */
export function toChatResponseEvents(a: AssembledAnswer, ctx: ChatResponseContext): ModelStreamEvent[] {
  const finishReason = a.finishReason ?? (ctx.endedWithDone ? (a.calls.some((c) => c.name !== '') ? 'tool_calls' : 'stop') : undefined);
  if (!finishReason) return [];
  const items: TranscriptItem[] = [];
  if (a.reasoning) items.push({ type: 'reasoning', summary: [a.reasoning], providerData: { [REASONING_FIELD_KEY]: a.reasoningField ?? 'reasoning_content' } });
  if (a.text) items.push({ type: 'message', role: 'assistant', content: a.text });
  const events: ModelStreamEvent[] = [];
  const usage = a.usage ? { usage: a.usage } : {};
  const cut = finishReason === 'length' ? 'max_output_tokens' : finishReason === 'content_filter' ? 'content_filter' : undefined;
  if (cut) {
    items.forEach((item, index) => events.push({ type: 'item.done', index, item }));
    events.push({ type: 'response.done', status: 'incomplete', incomplete_reason: cut, ...usage });
    return events;
  }
  const calls = a.calls.filter((c) => c.name !== '');
  const ids = assignIds(calls, ctx.historyCallIds);
  if (calls.length > 0 && !ctx.toolsOffered) {
    events.push({
      type: 'warning',
      code: 'tool_calls_ignored',
      message: `The model called ${namesForDisplay(calls.map((c) => c.name))} although no tools were offered; the calls were not run.`,
      call_ids: ids,
      tool_names: calls.map((c) => c.name),
    });
  } else {
    calls.forEach((c, k) => {
      const ns = ctx.tools.namespaced.get(c.name);
      items.push({ type: 'function_call', call_id: ids[k], name: ns ? ns.name : c.name, ...(ns ? { namespace: ns.namespace } : {}), arguments: c.arguments });
    });
  }
  items.forEach((item, index) => events.push({ type: 'item.done', index, item }));
  events.push({ type: 'response.done', status: 'completed', ...usage });
  return events;
}
