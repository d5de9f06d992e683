/**
 * The Responses API transport on the official `openai` SDK (`POST /responses` with
 * `stream: true` through the SDK's client: its auth, retries and HTTP errors), with the request
 * body serialized here (responses-body.ts) and the streamed answer read here (sse-events.ts:
 * the SDK's stream semantics, without parsing the frames the runtime never reads): wire-format
 * requests and events. The model port adapter on top of it is src/model/responses-model.ts.
 *
 * Pitfall handled here: the SDK adds an abort listener to the signal passed with each request and
 * never removes it. Passing the turn's long-lived signal would leak one listener per request, so
 * every request gets its own AbortController, linked to the turn signal for the request's
 * lifetime and unlinked in `finally`; it is aborted only when the request is still running then
 * (the consumer stopped early), never after a complete stream.
 *
 * A 2xx answer that is not an event stream is ModelError `not_event_stream` (event-stream-check.ts),
 * except a whole `response` object from a server that ignored `stream: true`, read as the events
 * that end a stream ({@link responseAsStream}), and a JSON error body (`{"error": {"message": …}}`),
 * thrown as the provider's error.
 * Comment lines (keep-alives) reach the caller's `hooks.onComment`, and events the adapter never
 * reads its `hooks.onUnread` when given (sse-events.ts).
 *
 * Retries: the SDK retries connection errors, 408/409/429 and 5xx (but 501: model-fetch.ts) with exponential backoff
 * (`maxRetries`, honouring `retry-after`/`retry-after-ms`). Errors that remain are thrown as
 * {@link ModelError}. When the turn signal aborts, the iteration simply ends early (the loop
 * checks its signal); an aborted request never throws a ModelError.
 */
import OpenAI from 'openai';
import type { ResponseCreateParamsStreaming, ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { ResponsesTransport } from './responses-model.js';
import { afterResponse, endpointForDisplay, ModelError } from './model-error.js';
import { assertEventStream } from './event-stream-check.js';
import { encodeResponsesBody } from './responses-body.js';
import { toModelError } from './responses-errors.js';
import { WHOLE_ANSWER } from './responses-stream.js';
import { RESPONSES_UNREAD, sseEvents, type SseHooks } from './sse-events.js';

export interface OpenAIResponsesClientOptions {
  /** Provider base URL including `/v1` (default: the SDK's, https://api.openai.com/v1). */
  baseURL?: string;
  /** API key; a placeholder is used when absent (local endpoints often need none). */
  apiKey?: string;
  /** SDK retries for connection errors, 429 and 5xx [2] (not 501 through `modelFetch`, see model-fetch.ts). */
  maxRetries?: number;
  /** Per-request timeout, ms [SDK default, 10 min]. */
  timeoutMs?: number;
  /** The `fetch` the SDK uses [the global one] (tests observe requests through it). */
  fetch?: typeof fetch;
}

/** Create a {@link ResponsesTransport} talking to a Responses API endpoint. */
export function createOpenAIResponsesClient(options: OpenAIResponsesClientOptions = {}): ResponsesTransport {
  const client = new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey ?? 'not-set',
    maxRetries: options.maxRetries ?? 2,
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return {
    endpoint: endpointForDisplay(client.baseURL),
    async *stream(request: ResponseCreateParamsStreaming, signal: AbortSignal, hooks?: SseHooks): AsyncIterable<ResponseStreamEvent> {
      if (signal.aborted) return;
      const controller = new AbortController();
      const onAbort = () => controller.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      let finished = false;
      try {
        let stream: AsyncIterable<ResponseStreamEvent>;
        try {
          // The body is sent as finished JSON text (responses-body.ts: each item serialized once
          // per turn); `post` passes a string body with its content-type verbatim, retries included.
          const response = await client.post('/responses', {
            body: encodeResponsesBody(request),
            headers: { 'content-type': 'application/json' },
            stream: true,
            signal: controller.signal,
          }).asResponse();
          // A 2xx that is no event stream (a wrong OPENAI_BASE_URL) says so, not "stream ended".
          const whole = await assertEventStream(response, 'response', endpointForDisplay(client.baseURL));
          stream = whole ? responseAsStream(whole, endpointForDisplay(client.baseURL)) : sseEvents<ResponseStreamEvent>(response, RESPONSES_UNREAD, hooks);
        } catch (err) {
          if (signal.aborted) return;
          throw toModelError(err, client);
        }
        try {
          for await (const event of stream) yield event;
          finished = true;
        } catch (err) {
          if (signal.aborted) return;
          // The response headers had arrived: what broke was an accepted response.
          throw afterResponse(toModelError(err, client));
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
        // Closes the HTTP body if the consumer stopped early. A complete stream is left alone:
        // aborting a finished request still builds a DOMException (with a stack) in each of the
        // SDK's and fetch's linked controllers, for nothing.
        if (!finished) controller.abort();
      }
    },
  };
}

/** The terminal stream event of each final status of a response object. */
const TERMINAL_OF_STATUS: Record<string, 'response.completed' | 'response.incomplete' | 'response.failed'> = {
  completed: 'response.completed',
  incomplete: 'response.incomplete',
  failed: 'response.failed',
};

/**
 * A whole `response` object (a server that ignored `stream: true`) as the stream that ends in it:
 * `response.created`, then the terminal event of its `status` (`response.completed`,
 * `.incomplete` or `.failed`) carrying it, whose `output` holds the items (responses-stream.ts
 * reads them from there when no `response.output_item.done` came), marked {@link WHOLE_ANSWER} so
 * that the error of a failed one says the endpoint answered it whole. A response without a final
 * status (none, or `in_progress`/`queued`: not finished) yields `response.created` and then throws
 * ModelError `stream_interrupted` saying that `endpoint` answered a JSON response object without a
 * final status, rather than that a stream ended early (there was no stream).
 */
export async function* responseAsStream(response: Record<string, unknown>, endpoint: string): AsyncIterable<ResponseStreamEvent> {
  yield { type: 'response.created', response, sequence_number: 0 } as unknown as ResponseStreamEvent;
  const terminal = TERMINAL_OF_STATUS[String(response.status)];
  if (terminal) {
    yield { type: terminal, response, sequence_number: 1, [WHOLE_ANSWER]: true } as unknown as ResponseStreamEvent;
    return;
  }
  const status = typeof response.status === 'string' ? `status "${response.status.slice(0, 40)}"` : 'no status';
  throw new ModelError(
    'stream_interrupted',
    `the model endpoint ${endpoint} answered a whole JSON response object (not a stream) with ${status}, not a final one (completed, incomplete or failed): nothing of an answer to read`,
  );
}
