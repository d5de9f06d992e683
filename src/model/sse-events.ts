/**
 * A model's streamed answer read from the HTTP response (Responses API events, Chat Completions
 * chunks): the body's server-sent events (parsed by `eventsource-parser`, the WHATWG rules) →
 * parsed payloads, with the `openai` SDK's own stream semantics (node_modules/openai/core/
 * streaming.js, `Stream.fromSSEResponse` in its default mode): `data: [DONE]` ends the stream; a
 * `data:` that is not JSON fails it; an `event: error` frame, or a payload with a top-level
 * `error`, is thrown as the SDK's `APIError` (whose `error` is the payload's `error`, or the
 * payload); beyond the SDK, so is a payload that is an error object of its own,
 * `{"object": "error", "message": …, "type": …, "code": 400}` (what older vLLM versions write into
 * a 200 stream; the APIError's `error` is the payload); an unfinished frame at the end of the body (no blank line after it) is still
 * delivered. (The SDK's `thread.*` events of the Assistants API are not a model stream's and get
 * no special treatment.) Beyond the SDK, the caller may hear of two things that yield nothing
 * ({@link SseHooks}): comment lines (keep-alives) and the `[DONE]` sentinel.
 *
 * Why not the SDK's reader: it splits lines byte by byte through its own decoder and parses
 * every frame's JSON, which made it the largest part of the service's CPU per model round
 * (`npm run bench:profile`). Here a chunk is decoded once and frames are split by the parser;
 * frames the caller never reads ({@link RESPONSES_UNREAD} for the Responses API) are not parsed
 * at all when the provider names its events (`event:` lines, as OpenAI does): they are yielded as
 * `{type}` alone. A frame without an `event:` line is always parsed.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { APIError, OpenAIError } from 'openai';

/**
 * Responses API event names whose payload the runtime ignores (src/model/responses-stream.ts maps
 * only `response.created`, text and reasoning-summary deltas, `response.output_item.done`, the
 * terminal `response.completed|incomplete|failed` and `error`). None of them is an error event.
 */
export const RESPONSES_UNREAD: ReadonlySet<string> = new Set([
  'response.in_progress',
  'response.queued',
  'response.output_item.added',
  'response.content_part.added',
  'response.content_part.done',
  'response.output_text.done',
  'response.function_call_arguments.delta',
  'response.function_call_arguments.done',
  'response.reasoning_summary_part.added',
  'response.reasoning_summary_part.done',
  'response.reasoning_summary_text.done',
]);

const NONE: ReadonlySet<string> = new Set();

/** What {@link sseEvents} reports besides the events it yields. */
export interface SseHooks {
  /**
   * A comment line arrived (a line starting with `:`, e.g. `: OPENROUTER PROCESSING`, which
   * OpenRouter "occasionally sends to prevent connection timeouts" while a model has not started
   * answering: https://openrouter.ai/docs/api_reference/streaming, "Additional Information").
   * Called synchronously while the body is read, once per comment line.
   */
  onComment?: () => void;
  /** The `data: [DONE]` sentinel arrived; called once, just before the iteration ends. */
  onDone?: () => void;
  /**
   * A frame whose `event:` name is in `unread` arrived: with this hook it is reported here,
   * synchronously while the body is read, instead of being yielded as `{type}` (a consumer that
   * only needs to know something came does not pull it through its layers of iterators).
   */
  onUnread?: (type: string) => void;
}

/**
 * The events of `response` (a 2xx streamed answer of a model endpoint).
 * Yields one value per frame: the parsed payload, or for a frame whose `event:` name is in
 * `unread` only `{type: <that name>}` (its payload unread; the consumer still sees the activity),
 * or nothing when `hooks.onUnread` is given (called with that name instead). Comments yield nothing and are reported to `hooks.onComment`; `[DONE]` ends the iteration after
 * `hooks.onDone`. A body that ends without `[DONE]` ends the iteration without it.
 * @throws OpenAIError when the response has no body; SyntaxError when a frame's data is not JSON;
 *   APIError for an error frame (`event: error`, a top-level `error`, or `"object": "error"`); whatever reading the body throws (a broken connection).
 */
export async function* sseEvents<T = unknown>(response: Response, unread: ReadonlySet<string> = NONE, hooks: SseHooks = {}): AsyncGenerator<T> {
  const body = response.body as unknown as AsyncIterable<Uint8Array> | null;
  if (!body) throw new OpenAIError('Attempted to iterate over a response with no body');
  const frames: EventSourceMessage[] = [];
  const { onComment, onUnread } = hooks;
  const parser = createParser({ onEvent: (m) => frames.push(m), ...(onComment ? { onComment: () => onComment() } : {}) });
  const decoder = new TextDecoder();
  const chunks = body[Symbol.asyncIterator]();
  let ended = false;
  try {
    while (!ended) {
      const next = await chunks.next();
      if (next.done) {
        // As the SDK does at the end of the body: a last CR ends its line, and an unfinished frame
        // (no blank line after it) is still delivered.
        parser.feed(`${decoder.decode()}\n\n`);
        ended = true;
      } else {
        parser.feed(decoder.decode(next.value, { stream: true }));
      }
      for (let i = 0; i < frames.length; i++) {
        const frame = frames[i];
        if (frame.data === '[DONE]') {
          hooks.onDone?.();
          return;
        }
        if (frame.event !== undefined && unread.has(frame.event)) {
          if (onUnread) onUnread(frame.event);
          else yield { type: frame.event } as T;
          continue;
        }
        let data: { error?: unknown; object?: unknown } | null;
        try {
          data = JSON.parse(frame.data) as { error?: unknown; object?: unknown } | null;
        } catch {
          throw new SyntaxError('Error reading response: malformed server-sent event JSON.');
        }
        if (frame.event === 'error') throw new APIError(undefined, (data?.error ?? data) as object, undefined, response.headers);
        if (data && data.error) throw new APIError(undefined, data.error as object, undefined, response.headers);
        if (data && data.object === 'error') throw new APIError(undefined, data, undefined, response.headers);
        yield data as T;
      }
      frames.length = 0;
    }
  } finally {
    // Stopped before the end of the body ([DONE], an error frame, the consumer left): close it
    // through its iterator, which keeps its error listener while it closes.
    if (!ended) await chunks.return?.();
  }
}
