/**
 * Read one streamed model response: neutral {@link ModelStreamEvent}s (src/model/port.ts) → the
 * completed output items, final status, usage and error. Text and reasoning deltas and warnings are
 * forwarded as they arrive.
 *
 * Items are ordered by their `index`; when a stream sent no `item.done` events the items of
 * `response.done` are used. A stream that ends without `response.done` is reported as
 * `stream_interrupted`.
 */
import { ModelError, type ModelStreamEvent, type TranscriptItem } from '../model/port.js';
import { endpointPhrase, streamBroke, streamPhrase } from '../model/model-error.js';

export interface ModelResponse {
  status: 'completed' | 'incomplete' | 'failed' | 'aborted';
  responseId?: string;
  items: TranscriptItem[];
  /** For `incomplete`: `max_output_tokens`, `content_filter`, … */
  incompleteReason?: string;
  /**
   * Tokens of this response; `null` when it finished but the server reported no usage (unknown,
   * not zero — some Chat Completions servers send none), or when it was cut after the server
   * answered; zeros for one that failed or was aborted before the server answered.
   */
  usage: { input_tokens: number; output_tokens: number } | null;
  error?: { code: string; message: string };
}

/**
 * Consume `events` fully. Never throws: errors become `status: 'failed'` (a thrown non-ModelError
 * is a broken stream, `stream_interrupted`); an abort of `signal` becomes `status: 'aborted'`.
 *
 * Usage: from `response.done` (null when the server sent none). A response that ended without
 * `response.done` after the server had answered — an event had arrived (yielded, or counted by
 * `providerEvents`), or the response headers had (a ModelError with `responseStarted`: cut before
 * its first event), or the stream ended without a terminal event — has unknown usage (`null`):
 * tokens may have been spent but were never reported. One that failed before the server answered
 * (connection refused, an HTTP error, cancelled while waiting for the headers) used none: `{0, 0}`.
 *
 * A stream that ended without a terminal event fails `stream_interrupted`: "the stream from the
 * model endpoint <endpoint> ended before the response completed" ("the model stream …" without an
 * endpoint) when the provider had sent events (with how many when none of them was passed on),
 * and "the model endpoint <endpoint> answered but its stream ended without a single event …" only
 * when it sent none at all.
 */
export async function readModelResponse(
  events: AsyncIterable<ModelStreamEvent>,
  signal: AbortSignal,
  onTextDelta: (text: string) => Promise<void>,
  /** Reasoning deltas and warnings, forwarded as they arrive. */
  onOther: (event: Extract<ModelStreamEvent, { type: 'reasoning.delta' | 'warning' }>) => Promise<void> = async () => undefined,
  /**
   * How many events the provider has sent so far, also those the adapter does not pass on (the
   * count of `onActivity` calls, `ModelStreamOptions` in port.ts); default: only yielded events count.
   */
  providerEvents: () => number = () => 0,
  /** The model endpoint as messages name it (the port's `endpoint`), when known: the errors made here name it. */
  endpoint?: string,
): Promise<ModelResponse> {
  const done = new Map<number, TranscriptItem>();
  const out: ModelResponse = { status: 'failed', items: [], usage: { input_tokens: 0, output_tokens: 0 } };
  let terminal = false;
  let yielded = false;
  let finalItems: TranscriptItem[] | undefined;
  const received = () => yielded || providerEvents() > 0;
  // Unknown usage once the provider had answered: an event arrived, or the response headers did.
  const unfinished = (started = false): Partial<Pick<ModelResponse, 'usage'>> => (received() || started ? { usage: null } : {});
  try {
    for await (const event of events) {
      yielded = true;
      if (event.type === 'response.started') {
        if (event.response_id) out.responseId = event.response_id;
      } else if (event.type === 'text.delta') {
        if (event.text) await onTextDelta(event.text);
      } else if (event.type === 'reasoning.delta' || event.type === 'warning') {
        await onOther(event);
      } else if (event.type === 'item.done') {
        done.set(event.index, event.item);
      } else if (event.type === 'response.done') {
        terminal = true;
        out.responseId = event.response_id ?? out.responseId;
        finalItems = event.items;
        out.usage = event.usage ? { ...event.usage } : null;
        out.status = event.status;
        if (event.status === 'incomplete') out.incompleteReason = event.incomplete_reason ?? 'unknown';
        if (event.status === 'failed') out.error = event.error ?? { code: 'response_failed', message: 'the model response failed' };
      } else if (event.type === 'error') {
        terminal = true;
        out.status = 'failed';
        out.error = { code: event.code || 'model_error', message: event.message || 'model stream error' };
      }
      if (terminal && out.status === 'failed') break;
    }
  } catch (err) {
    const started = err instanceof ModelError && err.responseStarted;
    if (signal.aborted) return { ...out, ...unfinished(started), status: 'aborted' };
    const e = err instanceof ModelError ? err : streamBroke((err as Error)?.message ?? String(err), endpoint);
    return { ...out, ...unfinished(started), status: 'failed', error: { code: e.code, message: e.message } };
  }
  if (signal.aborted && !terminal) return { ...out, ...unfinished(), status: 'aborted' };
  if (!terminal) {
    // Ended normally without a terminal event: the provider answered, so tokens may have been spent.
    // Without a single event, what answered was likely no model API (an empty or plain body).
    const sent = providerEvents();
    const message = yielded
      ? `${streamPhrase(endpoint)} ended before the response completed`
      : sent > 0
        ? `${streamPhrase(endpoint)} ended before the response completed (${sent} event${sent === 1 ? '' : 's'} received, none of them part of an answer)`
        : `${endpointPhrase(endpoint)} answered but its stream ended without a single event (an empty body, or no server-sent events): check OPENAI_BASE_URL`;
    return { ...out, ...unfinished(true), status: 'failed', error: { code: 'stream_interrupted', message } };
  }
  const indices = [...done.keys()].sort((a, b) => a - b);
  out.items = indices.length > 0 ? indices.map((i) => done.get(i)!) : (finalItems ?? []);
  return out;
}
