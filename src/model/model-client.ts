/**
 * ModelClient: the loop's only view of the model. The OpenAI Responses implementation lives in
 * src/model/openai-responses-client.ts; a Chat Completions adapter could be added beside it without
 * touching the loop.
 *
 * NOTE (runtime issue owner): refine this interface as the loop needs; keep it small.
 */
import type { ResponseCreateParamsStreaming, ResponseStreamEvent } from 'openai/resources/responses/responses';

/** One streaming request. `signal` is the turn's; implementations link a per-request controller to it. */
export interface ModelClient {
  stream(request: ResponseCreateParamsStreaming, signal: AbortSignal): AsyncIterable<ResponseStreamEvent>;
}
