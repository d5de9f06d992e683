/**
 * Responses adapter, requests: a neutral {@link ModelRequest} → `responses.create` params.
 *
 * Conversation modes (an adapter option, not a runtime concern):
 * - `stateless` (default): `store: false`, the full transcript as `input`, and
 *   `include: ["reasoning.encrypted_content"]` so reasoning items can be passed back unchanged.
 * - `previous_response_id`: `store: true`; with a `continuation`, `previous_response_id` of the
 *   last response and only the items added since it as `input`.
 */
import type { ResponseCreateParamsStreaming } from 'openai/resources/responses/responses';
import type { ModelRequest } from './port.js';
import { toResponsesInput, toResponsesTools } from './responses-items.js';

export type ResponsesConversationMode = 'stateless' | 'previous_response_id';

export function toResponsesRequest(r: ModelRequest, mode: ResponsesConversationMode = 'stateless'): ResponseCreateParamsStreaming {
  const base: ResponseCreateParamsStreaming = { model: r.model, stream: true, input: toResponsesInput(r.input) };
  if (r.instructions !== undefined) base.instructions = r.instructions;
  if (r.tools.length > 0) {
    base.tools = toResponsesTools(r.tools) as unknown as ResponseCreateParamsStreaming['tools'];
    base.tool_choice = r.toolChoice;
  }
  if (r.maxOutputTokens !== undefined) base.max_output_tokens = r.maxOutputTokens;
  if (r.parallelToolCalls !== undefined) base.parallel_tool_calls = r.parallelToolCalls;
  if (mode === 'previous_response_id') {
    base.store = true;
    if (r.continuation) {
      base.previous_response_id = r.continuation.responseId;
      base.input = toResponsesInput(r.input.slice(r.continuation.coveredItems));
    }
  } else {
    base.store = false;
    base.include = ['reasoning.encrypted_content'];
  }
  return base;
}
