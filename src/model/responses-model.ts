/**
 * The Responses adapter of the {@link ModelPort}: neutral requests → `responses.create` (through a
 * {@link ResponsesTransport}, normally the `openai` SDK client of openai-responses-client.ts) →
 * neutral stream events. Every wire event received, mapped or not, and every SSE comment line
 * (keep-alive) is reported to `hooks.onActivity` (`ModelStreamOptions` in port.ts).
 */
import type { ResponseCreateParamsStreaming, ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { ModelPort } from './port.js';
import type { SseHooks } from './sse-events.js';
import { toResponsesRequest, type ResponsesConversationMode } from './responses-request.js';
import { fromResponsesStream } from './responses-stream.js';

/**
 * Something that streams one Responses API request (wire types), one value per wire event in
 * order; an event the adapter never maps (`response.in_progress`, argument deltas, …) may come as
 * its `{type}` alone (openai-responses-client.ts does: sse-events.ts), or — given
 * `hooks.onUnread` — be reported there with its type instead of yielded. Throws ModelErrors.
 * `hooks.onComment` is called for each SSE comment line (a keep-alive), which yields nothing.
 */
export interface ResponsesTransport {
  /** The endpoint as messages name it (no credentials), when known: the port's `endpoint`. */
  readonly endpoint?: string;
  stream(request: ResponseCreateParamsStreaming, signal: AbortSignal, hooks?: Pick<SseHooks, 'onComment' | 'onUnread'>): AsyncIterable<ResponseStreamEvent>;
}

export interface ResponsesModelOptions {
  /** [stateless]; see src/model/responses-request.ts. */
  conversationMode?: ResponsesConversationMode;
}

/** Wrap a Responses transport as a {@link ModelPort}. */
export function createResponsesModel(transport: ResponsesTransport, options: ResponsesModelOptions = {}): ModelPort {
  const mode = options.conversationMode ?? 'stateless';
  return {
    endpoint: transport.endpoint,
    stream(request, signal, hooks) {
      const onActivity = hooks?.onActivity;
      // Events the runtime never reads count as activity without being yielded (sse-events.ts).
      const wire = transport.stream(toResponsesRequest(request, mode), signal, onActivity ? { onComment: onActivity, onUnread: onActivity } : undefined);
      return fromResponsesStream(wire, onActivity, transport.endpoint);
    },
  };
}
