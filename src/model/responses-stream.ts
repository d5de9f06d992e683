/**
 * Responses adapter, streams: `ResponseStreamEvent`s → neutral {@link ModelStreamEvent}s.
 *
 * Items are taken from `response.output_item.done` (the completed item: its `call_id` is the one
 * that counts — captures show `output_item.added` can carry a different one).
 */
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { streamErrorMessage, wholeAnswerErrorMessage } from './model-error.js';
import type { ModelStreamEvent } from './port.js';
import { fromResponsesOutputItem } from './responses-items.js';
import { tokenUsage } from './usage.js';
import { messageFieldText } from './provider-text.js';

/**
 * Marks (as a property set to true) an event a transport made from a whole JSON response object
 * rather than read from a stream (openai-responses-client.ts `responseAsStream`): the error of a
 * failed one is worded as an answer's, not a stream's ({@link fromResponsesStream}).
 */
export const WHOLE_ANSWER: unique symbol = Symbol('whole JSON answer');

/** Map one Responses stream event; undefined for events the runtime does not need. */
export function fromResponsesEvent(event: ResponseStreamEvent, itemsSeen: number): ModelStreamEvent | undefined {
  switch (event.type) {
    case 'response.created':
      return { type: 'response.started', response_id: event.response.id };
    case 'response.output_text.delta':
      return event.delta ? { type: 'text.delta', text: event.delta } : undefined;
    case 'response.reasoning_summary_text.delta':
      return event.delta ? { type: 'reasoning.delta', text: event.delta } : undefined;
    case 'response.output_item.done':
      return { type: 'item.done', index: event.output_index ?? itemsSeen, item: fromResponsesOutputItem(event.item) };
    case 'response.completed':
    case 'response.incomplete':
    case 'response.failed': {
      const r = event.response;
      // Counts that are not both non-negative integers are unknown usage, never zeros (usage.ts).
      const usage = r.usage ? tokenUsage(r.usage.input_tokens, r.usage.output_tokens) : undefined;
      const status = event.type === 'response.completed' ? 'completed' : event.type === 'response.incomplete' ? 'incomplete' : 'failed';
      return {
        type: 'response.done',
        status,
        ...(r.id ? { response_id: r.id } : {}),
        ...(usage ? { usage } : {}),
        ...(status === 'incomplete' ? { incomplete_reason: r.incomplete_details?.reason ?? 'unknown' } : {}),
        ...(status === 'failed'
          ? { error: { code: r.error?.code ?? 'response_failed', message: messageFieldText(r.error?.message) ?? 'the model response failed' } }
          : {}),
        ...(Array.isArray(r.output) ? { items: r.output.map(fromResponsesOutputItem) } : {}),
      };
    }
    case 'error':
      // Normally turned into a thrown APIError by the SDK; handled for other transports.
      return { type: 'error', code: event.code ?? 'model_error', message: messageFieldText(event.message) ?? 'model stream error' };
    default:
      return undefined;
  }
}

/**
 * Map a whole Responses stream; `onActivity` is called for every event received, mapped or not.
 * With `endpoint` (as messages show it), the message of an `error` event or a failed response
 * names it (model-error.ts `streamErrorMessage`; for a failed response that came whole, as one
 * JSON object marked {@link WHOLE_ANSWER}, `wholeAnswerErrorMessage`).
 */
export async function* fromResponsesStream(events: AsyncIterable<ResponseStreamEvent>, onActivity?: () => void, endpoint?: string): AsyncIterable<ModelStreamEvent> {
  let items = 0;
  for await (const e of events) {
    onActivity?.();
    const mapped = fromResponsesEvent(e, items);
    if (!mapped) continue;
    if (mapped.type === 'item.done') items++;
    if (endpoint && mapped.type === 'error') yield { ...mapped, message: streamErrorMessage(mapped.message, endpoint) };
    else if (endpoint && mapped.type === 'response.done' && mapped.error) {
      const message = (e as { [WHOLE_ANSWER]?: boolean })[WHOLE_ANSWER] ? wholeAnswerErrorMessage(mapped.error.message, endpoint) : streamErrorMessage(mapped.error.message, endpoint);
      yield { ...mapped, error: { ...mapped.error, message } };
    }
    else yield mapped;
  }
}
