/**
 * The Chat Completions transport on the official `openai` SDK
 * (`client.chat.completions.create({ ..., stream: true })`: its auth, retries and HTTP errors; the
 * streamed answer read by sse-events.ts with the SDK's stream semantics): wire-format params in,
 * parsed `chat.completion.chunk`s out. The model port adapter on top of it is
 * src/model/chat-model.ts.
 *
 * As in the Responses transport, every request gets its own AbortController linked to the turn's
 * signal and unlinked in `finally` (the SDK never removes the abort listener it adds to a
 * request's signal). SDK retries cover connection errors, 408/409/429 and 5xx but 501 (`maxRetries`; 501: model-fetch.ts);
 * what remains is thrown as a {@link ModelError} (chat-errors.ts); a 2xx answer that is not an
 * event stream is `not_event_stream` (event-stream-check.ts), except a whole `chat.completion`
 * from a server that ignored `stream: true`, read as one chunk ({@link completionAsChunk}), and a
 * JSON error body (`{"error": {"message": …}}`), thrown as the provider's error. An aborted request ends the
 * iteration quietly. Comment lines and `[DONE]` reach the caller's hooks (sse-events.ts).
 */
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { toChatModelError } from './chat-errors.js';
import { afterResponse, endpointForDisplay } from './model-error.js';
import { assertEventStream } from './event-stream-check.js';
import type { ChatTransport } from './chat-model.js';
import { sseEvents, type SseHooks } from './sse-events.js';

export interface OpenAIChatClientOptions {
  /** Server base URL including `/v1` (default: the SDK's, https://api.openai.com/v1). */
  baseURL?: string;
  /** API key; a placeholder is sent when absent (local servers often need none). */
  apiKey?: string;
  /** SDK retries for connection errors, 429 and 5xx [2] (not 501 through `modelFetch`, see model-fetch.ts). */
  maxRetries?: number;
  /** Per-request timeout, ms [SDK default, 10 min]. */
  timeoutMs?: number;
  /** The `fetch` the SDK uses [the global one]. */
  fetch?: typeof fetch;
}

/** Create a {@link ChatTransport} talking to a Chat Completions endpoint. */
export function createOpenAIChatClient(options: OpenAIChatClientOptions = {}): ChatTransport {
  const client = new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey ?? 'not-set',
    maxRetries: options.maxRetries ?? 2,
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return {
    endpoint: endpointForDisplay(client.baseURL),
    async *stream(params: ChatCompletionCreateParamsStreaming, signal: AbortSignal, hooks?: SseHooks): AsyncIterable<unknown> {
      if (signal.aborted) return;
      const controller = new AbortController();
      const onAbort = () => controller.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      let finished = false;
      try {
        let stream: AsyncIterable<unknown>;
        try {
          // The answer is read by sse-events.ts (the SDK's stream semantics, without its reader); a 2xx
          // that is no event stream (a wrong OPENAI_BASE_URL) says so, not "stream ended".
          const response = await client.chat.completions.create(params, { signal: controller.signal }).asResponse();
          const whole = await assertEventStream(response, 'chat.completion', endpointForDisplay(client.baseURL));
          stream = whole ? completionAsStream(whole, hooks) : sseEvents(response, undefined, hooks);
        } catch (err) {
          if (signal.aborted) return;
          throw toChatModelError(err, client);
        }
        try {
          for await (const chunk of stream) yield chunk;
          finished = true;
        } catch (err) {
          if (signal.aborted) return;
          // The response headers had arrived: what broke was an accepted response.
          throw afterResponse(toChatModelError(err, client));
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
        if (!finished) controller.abort(); // a complete stream has nothing left to stop
      }
    },
  };
}

/**
 * A whole `chat.completion` (a server that ignored `stream: true`) as the one
 * `chat.completion.chunk` that streams the same answer: each choice's `message` becomes its
 * `delta` (text, refusal, `reasoning_content` / `reasoning`, tool calls given their list `index`
 * as streamed tool calls carry), with its `finish_reason`; `usage` is kept. The chunk goes
 * through the same assembly as a streamed one (chat-assembly.ts).
 */
export function completionAsChunk(completion: Record<string, unknown>): Record<string, unknown> {
  const choices = (completion.choices as unknown[]).map((c, i) => {
    const choice = (c ?? {}) as Record<string, unknown>;
    const message = (choice.message ?? {}) as Record<string, unknown>;
    const delta: Record<string, unknown> = { ...message };
    if (Array.isArray(message.tool_calls)) {
      delta.tool_calls = message.tool_calls.map((t, index) => ({ index, ...(t as Record<string, unknown>) }));
    }
    return { index: choice.index ?? i, delta, finish_reason: choice.finish_reason ?? null };
  });
  return { ...completion, object: 'chat.completion.chunk', choices };
}

/** The whole answer as a stream: its one chunk, then the end (`onDone`, as `[DONE]` would). */
async function* completionAsStream(completion: Record<string, unknown>, hooks: SseHooks | undefined): AsyncIterable<unknown> {
  yield completionAsChunk(completion);
  hooks?.onDone?.();
}
