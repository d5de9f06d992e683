/**
 * Read one streamed model response: `ResponseStreamEvent`s → the completed output items, final
 * status, usage and error. Text deltas are forwarded as they arrive.
 *
 * Items are taken from `response.output_item.done` (the completed item: its `call_id` is the one
 * that counts — captures show `output_item.added` can carry a different one), ordered by
 * `output_index`. A stream that ends without `response.completed` / `response.incomplete` /
 * `response.failed` is reported as `stream_interrupted`.
 */
import type { ResponseOutputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { ModelError, toModelError } from '../model/model-error.js';

export interface ModelResponse {
  status: 'completed' | 'incomplete' | 'failed' | 'aborted';
  responseId?: string;
  items: ResponseOutputItem[];
  /** For `incomplete`: `max_output_tokens`, `content_filter`, … */
  incompleteReason?: string;
  usage: { input_tokens: number; output_tokens: number };
  error?: { code: string; message: string };
}

/**
 * Consume `events` fully. Never throws: errors become `status: 'failed'`; an abort of `signal`
 * becomes `status: 'aborted'`.
 */
export async function readModelResponse(
  events: AsyncIterable<ResponseStreamEvent>,
  signal: AbortSignal,
  onTextDelta: (text: string) => Promise<void>,
): Promise<ModelResponse> {
  const done = new Map<number, ResponseOutputItem>();
  const out: ModelResponse = { status: 'failed', items: [], usage: { input_tokens: 0, output_tokens: 0 } };
  let terminal = false;
  let finalOutput: ResponseOutputItem[] | undefined;
  try {
    for await (const event of events) {
      switch (event.type) {
        case 'response.created':
          out.responseId = event.response.id;
          break;
        case 'response.output_text.delta':
          if (event.delta) await onTextDelta(event.delta);
          break;
        case 'response.output_item.done':
          done.set(event.output_index ?? done.size, event.item);
          break;
        case 'response.completed':
        case 'response.incomplete':
        case 'response.failed': {
          const r = event.response;
          terminal = true;
          out.responseId = r.id ?? out.responseId;
          finalOutput = r.output;
          if (r.usage) out.usage = { input_tokens: r.usage.input_tokens ?? 0, output_tokens: r.usage.output_tokens ?? 0 };
          if (event.type === 'response.completed') out.status = 'completed';
          else if (event.type === 'response.incomplete') {
            out.status = 'incomplete';
            out.incompleteReason = r.incomplete_details?.reason ?? 'unknown';
          } else {
            out.status = 'failed';
            out.error = { code: r.error?.code ?? 'response_failed', message: r.error?.message ?? 'the model response failed' };
          }
          break;
        }
        case 'error':
          // Normally turned into a thrown APIError by the SDK; handled for other clients.
          terminal = true;
          out.status = 'failed';
          out.error = { code: event.code ?? 'model_error', message: event.message ?? 'model stream error' };
          break;
        default:
          break;
      }
      if (terminal && out.status === 'failed') break;
    }
  } catch (err) {
    if (signal.aborted) return { ...out, status: 'aborted' };
    const e = err instanceof ModelError ? err : toModelError(err);
    return { ...out, status: 'failed', error: { code: e.code, message: e.message } };
  }
  if (signal.aborted && !terminal) return { ...out, status: 'aborted' };
  if (!terminal) {
    return { ...out, status: 'failed', error: { code: 'stream_interrupted', message: 'the model stream ended before the response completed' } };
  }
  const indices = [...done.keys()].sort((a, b) => a - b);
  out.items = indices.length > 0 ? indices.map((i) => done.get(i)!) : (finalOutput ?? []);
  return out;
}
