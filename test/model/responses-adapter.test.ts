import { describe, expect, it } from 'vitest';
import type { ResponseOutputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { ModelRequest, ModelStreamEvent, TranscriptItem } from '../../src/model/port.js';
import { fromResponsesOutputItem, toResponsesInput, toResponsesInputItem } from '../../src/model/responses-items.js';
import { toResponsesRequest } from '../../src/model/responses-request.js';
import { fromResponsesStream } from '../../src/model/responses-stream.js';
import { loadFixtureStreams } from '../support/scripted-responses-server.js';

const FIXTURES = [
  'openai-reasoning-encrypted-content.1.chunks.txt',
  'issue-19493-gpt-5.1-tool-call.chunks.txt',
  'openai-client-tool-search.1.chunks.txt',
  'openai-client-tool-search.2.chunks.txt',
  'openai-custom-tool.1.chunks.txt',
];

function doneItems(file: string): ResponseOutputItem[] {
  return loadFixtureStreams(file)
    .flat()
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === 'response.output_item.done')
    .map((e) => e.item);
}

async function* replay(file: string, stream = 0): AsyncIterable<ResponseStreamEvent> {
  for (const l of loadFixtureStreams(file)[stream]) yield JSON.parse(l);
}

const base: ModelRequest = { model: 'm', input: [{ type: 'message', role: 'user', content: 'hi' }], tools: [], toolChoice: 'auto' };

describe('Responses adapter: items', () => {
  it('sends every captured output item other than a function call back exactly as it was completed', () => {
    let count = 0;
    for (const file of FIXTURES) {
      for (const item of doneItems(file).filter((i) => i.type !== 'function_call')) {
        expect(toResponsesInputItem(fromResponsesOutputItem(item))).toEqual(item);
        count++;
      }
    }
    expect(count).toBeGreaterThanOrEqual(4);
  });

  it('sends a captured function call back with only the fields the API reads: no status, and its id only beside its reasoning', () => {
    const calls = FIXTURES.flatMap(doneItems).filter((i) => i.type === 'function_call');
    expect(calls.length).toBeGreaterThanOrEqual(5);
    for (const call of calls) {
      const { id: _id, status: _status, ...needed } = call as unknown as Record<string, unknown>;
      expect(toResponsesInput([fromResponsesOutputItem(call)])).toEqual([needed]);
    }
    // The captured reasoning run: its reasoning item is followed by its call, which keeps its fc_ id
    // (the API pairs the two by it); the next response's call, after the tool output, does not.
    const [reasoning, first, second] = doneItems('openai-reasoning-encrypted-content.1.chunks.txt');
    const input = toResponsesInput([
      { type: 'message', role: 'user', content: 'calc' },
      fromResponsesOutputItem(reasoning),
      fromResponsesOutputItem(first),
      { type: 'function_call_output', call_id: (first as { call_id: string }).call_id, output: '19' },
      fromResponsesOutputItem(second),
    ]);
    expect(input[1]).toEqual(reasoning);
    const { status: _s1, ...firstSent } = first as unknown as Record<string, unknown>;
    expect(input[2]).toEqual(firstSent);
    expect(input[2]).toMatchObject({ id: expect.stringMatching(/^fc_/) });
    const { id: _i2, status: _s2, ...secondSent } = second as unknown as Record<string, unknown>;
    expect(input[4]).toEqual(secondSent);
  });

  it('maps captured items to neutral items the runtime can read without provider fields', () => {
    const [reasoning, call] = doneItems('openai-reasoning-encrypted-content.1.chunks.txt').map(fromResponsesOutputItem);
    expect(reasoning).toMatchObject({ type: 'reasoning', encrypted_content: expect.stringMatching(/^gAAAA/) });
    expect(call).toMatchObject({ type: 'function_call', call_id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn', name: 'calculator', arguments: expect.any(String) });
    const items = FIXTURES.flatMap(doneItems).map(fromResponsesOutputItem);
    expect(items.map((i) => i.type)).toEqual(expect.arrayContaining(['tool_search_call', 'custom_tool_call', 'message']));
  });

  it('keeps the namespace of a namespaced call and maps image outputs to input_image parts', () => {
    const call: TranscriptItem = { type: 'function_call', call_id: 'c1', name: 'create', namespace: 'widgets', arguments: '{}' };
    expect(toResponsesInputItem(call)).toEqual({ type: 'function_call', call_id: 'c1', name: 'create', namespace: 'widgets', arguments: '{}' });
    const out: TranscriptItem = { type: 'function_call_output', call_id: 'c1', output: [{ type: 'text', text: 'see' }, { type: 'image', url: 'data:image/png;base64,AA' }] };
    expect(toResponsesInputItem(out)).toEqual({
      type: 'function_call_output',
      call_id: 'c1',
      output: [{ type: 'input_text', text: 'see' }, { type: 'input_image', image_url: 'data:image/png;base64,AA', detail: 'auto' }],
    });
  });

  it('leaves out provider items made by another adapter', () => {
    expect(toResponsesInputItem({ type: 'provider_item', provider: 'chat-completions', item: { x: 1 } })).toBeUndefined();
    expect(toResponsesInputItem({ type: 'provider_item', provider: 'openai-responses', item: { type: 'web_search_call', id: 'w' } })).toEqual({ type: 'web_search_call', id: 'w' });
  });
});

describe('Responses adapter: requests', () => {
  it('stateless: store false, encrypted reasoning included, whole input, per-request options mapped', () => {
    const body = toResponsesRequest({ ...base, maxOutputTokens: 50, parallelToolCalls: false, continuation: { responseId: 'resp_1', coveredItems: 1 } });
    expect(body).toMatchObject({ model: 'm', stream: true, store: false, include: ['reasoning.encrypted_content'], max_output_tokens: 50, parallel_tool_calls: false });
    expect(body.previous_response_id).toBeUndefined();
    expect(body.input).toEqual([{ type: 'message', role: 'user', content: 'hi' }]);
    expect(body.tools).toBeUndefined();
  });

  it('previous_response_id: store true, chains the response and sends only uncovered items', () => {
    const input: TranscriptItem[] = [...base.input, { type: 'function_call_output', call_id: 'c', output: 'x' }];
    const body = toResponsesRequest({ ...base, input, continuation: { responseId: 'resp_1', coveredItems: 1 } }, 'previous_response_id');
    expect(body).toMatchObject({ store: true, previous_response_id: 'resp_1', input: [{ type: 'function_call_output', call_id: 'c', output: 'x' }] });
    expect(body.include).toBeUndefined();
  });

  it('sends tool_choice none with the tools still listed', () => {
    const tools = [{ type: 'function' as const, name: 'f', description: 'd', parameters: { type: 'object' }, strict: false }];
    expect(toResponsesRequest({ ...base, tools, toolChoice: 'none' })).toMatchObject({ tools, tool_choice: 'none' });
  });
});

describe('Responses adapter: streams', () => {
  it('maps a captured stream to started, deltas, item.done and one response.done with usage', async () => {
    const events: ModelStreamEvent[] = [];
    for await (const e of fromResponsesStream(replay('openai-reasoning-encrypted-content.1.chunks.txt', 3))) events.push(e);
    expect(events[0]).toMatchObject({ type: 'response.started', response_id: expect.any(String) });
    const text = events.filter((e) => e.type === 'text.delta').map((e) => (e as { text: string }).text).join('');
    expect(text).toBe('The final result is **570**.');
    const last = events.at(-1)!;
    expect(last).toMatchObject({ type: 'response.done', status: 'completed', usage: { input_tokens: expect.any(Number) } });
    expect(events.filter((e) => e.type === 'response.done')).toHaveLength(1);
  });

  it('maps the captured error stream to a failed response with the provider code', async () => {
    const events: ModelStreamEvent[] = [];
    for await (const e of fromResponsesStream(replay('openai-error.1.chunks.txt'))) events.push(e);
    expect(events.some((e) => (e.type === 'error' && e.code === 'insufficient_quota') || (e.type === 'response.done' && e.error?.code === 'insufficient_quota'))).toBe(true);
  });
});
