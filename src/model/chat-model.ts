/**
 * The Chat Completions adapter of the {@link ModelPort}: neutral requests → `chat.completions`
 * params (chat-request.ts) → a {@link ChatTransport} (normally the `openai` SDK client of
 * openai-chat-client.ts) → chunks assembled (chat-assembly.ts) → neutral stream events
 * (chat-response.ts). Text and reasoning deltas are passed on as they arrive; items and
 * `response.done` follow once the stream has ended (whether it ended with `[DONE]` decides what a
 * missing `finish_reason` means, see chat-response.ts). The runtime does not change. Every chunk
 * received (tool-call argument pieces included, which yield nothing until the end) and every SSE
 * comment line (keep-alive) is reported to `hooks.onActivity` (`ModelStreamOptions` in port.ts).
 * A stream whose chunks end without a usable answer — none with a choice, none with choice 0, or
 * no `finish_reason` and no `[DONE]` — throws ModelError `stream_interrupted` saying which
 * (chat-stream-end.ts).
 */
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { ChatAnswerAssembler } from './chat-assembly.js';
import { toChatRequest, type ChatServerFeatures, chatFeatures } from './chat-request.js';
import { toChatResponseEvents, transcriptCallIds } from './chat-response.js';
import { ChatChunkTally } from './chat-stream-end.js';
import type { ModelPort, ModelStreamEvent } from './port.js';
import type { SseHooks } from './sse-events.js';

/**
 * Something that streams one Chat Completions request: yields each `data:` chunk parsed (wire
 * shape, unvalidated), calls `hooks.onDone` at `[DONE]` and stops there (a body that ends without
 * it just ends), calls `hooks.onComment` for each SSE comment line (yielding nothing), throws
 * {@link ModelError}s, and ends quietly when `signal` aborts.
 */
export interface ChatTransport {
  /** The endpoint as messages name it (no credentials), when known: the port's `endpoint`. */
  readonly endpoint?: string;
  stream(params: ChatCompletionCreateParamsStreaming, signal: AbortSignal, hooks?: SseHooks): AsyncIterable<unknown>;
}

export interface ChatModelOptions {
  /** What the server accepts beyond the core [none]; see chat-request.ts. */
  features?: ChatServerFeatures;
}

/** Wrap a Chat Completions transport as a {@link ModelPort}. */
export function createChatModel(transport: ChatTransport, options: ChatModelOptions = {}): ModelPort {
  const features = options.features ?? chatFeatures();
  return {
    endpoint: transport.endpoint,
    async *stream(request, signal, hooks): AsyncIterable<ModelStreamEvent> {
      const plan = toChatRequest(request, features);
      const assembler = new ChatAnswerAssembler();
      const onActivity = hooks?.onActivity;
      let done = false; // the server sent `[DONE]`
      const tally = new ChatChunkTally();
      const wire = transport.stream(plan.params, signal, { ...(onActivity ? { onComment: onActivity } : {}), onDone: () => (done = true) });
      for await (const chunk of wire) {
        onActivity?.();
        tally.add(chunk);
        const d = assembler.push(chunk);
        if (d.reasoning) yield { type: 'reasoning.delta', text: d.reasoning };
        if (d.text) yield { type: 'text.delta', text: d.text };
      }
      if (signal.aborted) return;
      const closing = toChatResponseEvents(assembler.result(), {
        historyCallIds: transcriptCallIds(request.input),
        tools: plan.tools,
        toolsOffered: plan.toolsOffered,
        endedWithDone: done,
      });
      // Chunks came but no usable ending: say which (chat-stream-end.ts), not "no event at all".
      const problem = tally.problem(closing.some((e) => e.type === 'response.done'), transport.endpoint);
      if (problem) throw problem;
      yield* closing;
    },
  };
}
