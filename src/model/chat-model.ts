/**
 * The Chat Completions adapter of the {@link ModelPort}: neutral requests → `chat.completions`
 * params (chat-request.ts) → a {@link ChatTransport} (normally the `openai` SDK client of
 * openai-chat-client.ts) → chunks assembled (chat-assembly.ts) → neutral stream events
 * (chat-response.ts). Text and reasoning deltas are passed on as they arrive; items and
 * `response.done` follow once the stream has ended. The runtime does not change. Every chunk
 * received (tool-call argument pieces included, which yield nothing until the end) is reported to
 * `hooks.onActivity` (`ModelStreamOptions` in port.ts). A stream whose chunks end without a usable
 * answer — none with a choice, none with choice 0, or no `finish_reason` — throws ModelError
 * `stream_interrupted` saying which (chat-stream-end.ts).
 */
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { ChatAnswerAssembler } from './chat-assembly.js';
import { toChatRequest, type ChatServerFeatures, chatFeatures } from './chat-request.js';
import { toChatResponseEvents, transcriptCallIds } from './chat-response.js';
import { ChatChunkTally } from './chat-stream-end.js';
import type { ModelPort, ModelStreamEvent } from './port.js';

/**
 * Something that streams one Chat Completions request: yields each `data:` chunk parsed (wire
 * shape, unvalidated), stops at `[DONE]`, throws {@link ModelError}s, and ends quietly when
 * `signal` aborts.
 */
export interface ChatTransport {
  stream(params: ChatCompletionCreateParamsStreaming, signal: AbortSignal): AsyncIterable<unknown>;
}

export interface ChatModelOptions {
  /** What the server accepts beyond the core [none]; see chat-request.ts. */
  features?: ChatServerFeatures;
}

/** Wrap a Chat Completions transport as a {@link ModelPort}. */
export function createChatModel(transport: ChatTransport, options: ChatModelOptions = {}): ModelPort {
  const features = options.features ?? chatFeatures();
  return {
    async *stream(request, signal, hooks): AsyncIterable<ModelStreamEvent> {
      const plan = toChatRequest(request, features);
      const assembler = new ChatAnswerAssembler();
      const tally = new ChatChunkTally();
      for await (const chunk of transport.stream(plan.params, signal)) {
        hooks?.onActivity?.();
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
      });
      // Chunks came but no usable ending: say which (chat-stream-end.ts), not "no event at all".
      const problem = tally.problem(closing.some((e) => e.type === 'response.done'));
      if (problem) throw problem;
      yield* closing;
    },
  };
}
