/**
 * ModelClient: the loop's only view of the model. The OpenAI Responses implementation lives in
 * src/model/openai-responses-client.ts; a Chat Completions adapter could be added beside it without
 * touching the loop.
 */
import type { ResponseCreateParamsStreaming, ResponseStreamEvent } from 'openai/resources/responses/responses';

/**
 * One streaming request. `signal` is the turn's; implementations link a per-request controller to
 * it and unlink it when the request ends.
 *
 * Contract for implementations: yield the Responses streaming events in order; on a provider or
 * transport failure throw a `ModelError` (src/model/model-error.ts) carrying the provider's code;
 * when `signal` aborts, stop quietly (end the iteration or throw — the loop checks the signal).
 * The loop treats a stream that ends without `response.completed` / `response.incomplete` /
 * `response.failed` as `stream_interrupted`.
 */
export interface ModelClient {
  stream(request: ResponseCreateParamsStreaming, signal: AbortSignal): AsyncIterable<ResponseStreamEvent>;
}
