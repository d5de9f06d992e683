/**
 * The baseline of the service benches: a hand-written agent loop on the raw `openai` SDK
 * (`responses.create({ stream: true, store: false })`), the way one writes it without any
 * framework — stream a response, keep its completed output items, run the no-op tool for each
 * function call, append the outputs, ask again — against the same scripted server the service
 * talks to. Also the script both use: R rounds of one `noop {n}` call each, then a text answer.
 */
import OpenAI from 'openai';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { functionCall, message, type OutputStep, type ResponsesRequestBody } from '../../test/support/scripted-responses-server.js';

/** One order-independent script entry: a `noop` call until the request carries `rounds` outputs, then `done`. */
export function noopRounds(rounds: number): (body: ResponsesRequestBody, index?: number) => OutputStep {
  return (body: ResponsesRequestBody) => {
    const n = (body.input as { type?: string }[]).filter((i) => i.type === 'function_call_output').length;
    return n < rounds ? { output: [functionCall('noop', { n }, { callId: `call_${n}` })] } : { output: [message('done')] };
  };
}

/** The tool definition the raw loop sends (what the service sends for its `noop` tool, by hand). */
const NOOP_TOOL = {
  type: 'function' as const, name: 'noop', description: 'Does nothing and answers ok.', strict: true,
  parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false },
};

/** A client for {@link rawTurn}: create it once, as an application would. */
export const rawClient = (baseURL: string) => new OpenAI({ baseURL, apiKey: 'bench-key', maxRetries: 0 });

/**
 * One turn of the raw loop. @returns the number of model requests made (rounds + 1).
 * @throws when the answer is not the scripted `done`.
 */
export async function rawTurn(client: OpenAI, input = 'go'): Promise<number> {
  const items: ResponseInputItem[] = [{ type: 'message', role: 'user', content: input }];
  for (let requests = 1; ; requests++) {
    const stream = await client.responses.create({ model: 'bench-model', input: items, tools: [NOOP_TOOL], tool_choice: 'auto', store: false, stream: true });
    const calls: { call_id: string; arguments: string }[] = [];
    let text = '';
    for await (const e of stream) {
      if (e.type === 'response.output_text.delta') text += e.delta;
      if (e.type !== 'response.output_item.done') continue;
      items.push(e.item as ResponseInputItem);
      if (e.item.type === 'function_call') calls.push(e.item);
    }
    if (calls.length === 0) {
      if (text !== 'done') throw new Error(`raw loop ended with ${JSON.stringify(text)}`);
      return requests;
    }
    for (const c of calls) {
      const { n } = JSON.parse(c.arguments) as { n: number };
      items.push({ type: 'function_call_output', call_id: c.call_id, output: `ok ${n}` });
    }
  }
}
