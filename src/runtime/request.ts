/**
 * Build one Responses API request for the loop.
 *
 * - `stateless` (default): `store: false`, the full transcript as `input`, and
 *   `include: ["reasoning.encrypted_content"]` so reasoning items can be passed back unchanged.
 * - `previous_response_id`: `store: true`, `previous_response_id` of the last response, and only
 *   the items added since that response as `input`.
 */
import type { ResponseCreateParamsStreaming, Tool } from 'openai/resources/responses/responses';
import type { TranscriptItem } from './turn-types.js';

export interface BuildRequestInput {
  model: string;
  instructions?: string;
  tools: Tool[];
  toolChoice: 'auto' | 'required' | 'none';
  mode: 'stateless' | 'previous_response_id';
  transcript: TranscriptItem[];
  /** previous_response_id mode: the last response id and how many transcript items it covers. */
  previousResponseId?: string;
  coveredItems?: number;
  maxOutputTokens?: number;
}

export function buildModelRequest(i: BuildRequestInput): ResponseCreateParamsStreaming {
  const base: ResponseCreateParamsStreaming = {
    model: i.model,
    stream: true,
    input: i.transcript,
  };
  if (i.instructions !== undefined) base.instructions = i.instructions;
  if (i.tools.length > 0) {
    base.tools = i.tools;
    base.tool_choice = i.toolChoice;
  }
  if (i.maxOutputTokens !== undefined) base.max_output_tokens = i.maxOutputTokens;
  if (i.mode === 'previous_response_id') {
    base.store = true;
    if (i.previousResponseId !== undefined) {
      base.previous_response_id = i.previousResponseId;
      base.input = i.transcript.slice(i.coveredItems ?? 0);
    }
  } else {
    base.store = false;
    base.include = ['reasoning.encrypted_content'];
  }
  return base;
}
