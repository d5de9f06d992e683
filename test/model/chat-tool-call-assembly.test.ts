import { describe, expect, it } from 'vitest';
import type { TranscriptItem } from '../../src/model/port.js';
import { chatRequest, doneOf, itemsOf, runChatRequest } from '../support/chat-model-harness.js';
import { chatCall, chatText } from '../support/scripted-chat-server.js';

const echoTool = { type: 'function' as const, name: 'echo', description: 'Echo', parameters: { type: 'object', properties: { text: { type: 'string' } } }, strict: false };
const withTools = (extra: Parameters<typeof chatRequest>[0] = {}) => chatRequest({ tools: [echoTool], ...extra });
const calls = (items: TranscriptItem[]) => items.filter((i) => i.type === 'function_call');

describe('Chat Completions adapter: tool calls assembled from streamed deltas', () => {
  it('assembles calls split over many deltas by index, in order, with their ids', async () => {
    const { events } = await runChatRequest(
      [{ toolCalls: [chatCall('echo', { text: 'first call' }, { id: 'call_a' }), chatCall('echo', { text: 'second' }, { id: 'call_b' })] }],
      withTools(),
    );
    expect(calls(itemsOf(events))).toEqual([
      { type: 'function_call', call_id: 'call_a', name: 'echo', arguments: '{"text":"first call"}' },
      { type: 'function_call', call_id: 'call_b', name: 'echo', arguments: '{"text":"second"}' },
    ]);
    expect(doneOf(events)).toMatchObject({ status: 'completed', usage: { input_tokens: 10, output_tokens: 5 } });
  });

  it('treats the call id repeated in every chunk as one call', async () => {
    const { events } = await runChatRequest([{ toolCalls: [chatCall('echo', { text: 'repeated id' }, { id: 'call_r', repeatId: true })] }], withTools());
    expect(calls(itemsOf(events))).toEqual([{ type: 'function_call', call_id: 'call_r', name: 'echo', arguments: '{"text":"repeated id"}' }]);
  });

  it('keeps calls apart that all come with index 0 but different ids', async () => {
    const { events } = await runChatRequest(
      [{ toolCalls: [chatCall('echo', { text: 'one' }, { id: 'id_1', index: 0 }), chatCall('echo', { text: 'two' }, { id: 'id_2', index: 0 })] }],
      withTools(),
    );
    expect(calls(itemsOf(events)).map((c) => [c.call_id, c.arguments])).toEqual([['id_1', '{"text":"one"}'], ['id_2', '{"text":"two"}']]);
  });

  it('keeps calls apart that come with index 0 and no ids at all', async () => {
    const { events } = await runChatRequest(
      [{ toolCalls: [chatCall('echo', { text: 'one' }, { id: null, index: 0 }), chatCall('echo', { text: 'two' }, { id: null, index: 0 })] }],
      withTools(),
    );
    expect(calls(itemsOf(events)).map((c) => c.arguments)).toEqual(['{"text":"one"}', '{"text":"two"}']);
  });

  it('takes arguments sent only in the final chunk, and a whole call sent in one chunk', async () => {
    const { events } = await runChatRequest(
      [{ toolCalls: [chatCall('echo', { text: 'late' }, { id: 'c1', style: 'args-last' }), chatCall('echo', { text: 'whole' }, { id: 'c2', style: 'one-chunk' })] }],
      withTools(),
    );
    expect(calls(itemsOf(events)).map((c) => c.arguments)).toEqual(['{"text":"late"}', '{"text":"whole"}']);
  });

  it('gives calls without ids call_<n> ids that are unique in the transcript', async () => {
    const history: TranscriptItem[] = [
      { type: 'message', role: 'user', content: 'go' },
      { type: 'function_call', call_id: 'call_1', name: 'echo', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'ok' },
    ];
    const { events } = await runChatRequest(
      [{ toolCalls: [chatCall('echo', { text: 'a' }, { id: null }), chatCall('echo', { text: 'b' }, { id: null })] }],
      withTools({ input: history }),
    );
    expect(calls(itemsOf(events)).map((c) => c.call_id)).toEqual(['call_2', 'call_3']);
  });

  it('renames an id the server reuses from an earlier round, and a duplicate within one answer', async () => {
    const history: TranscriptItem[] = [
      { type: 'message', role: 'user', content: 'go' },
      { type: 'function_call', call_id: 'call_0', name: 'echo', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_0', output: 'ok' },
    ];
    const { events } = await runChatRequest(
      [{ toolCalls: [chatCall('echo', { text: 'a' }, { id: 'call_0' }), chatCall('echo', { text: 'b' }, { id: 'fresh' }), chatCall('echo', { text: 'c' }, { id: 'fresh', index: 2 })] }],
      withTools({ input: history }),
    );
    const ids = calls(itemsOf(events)).map((c) => c.call_id);
    expect(ids).toEqual(['call_1', 'fresh', 'call_2']);
  });

  it('runs calls that arrive with finish_reason "stop"', async () => {
    const { events } = await runChatRequest([{ toolCalls: [chatCall('echo', { text: 'x' }, { id: 'c1' })], finishReason: 'stop' }], withTools());
    expect(calls(itemsOf(events))).toHaveLength(1);
    expect(doneOf(events)).toMatchObject({ status: 'completed' });
  });

  it('treats finish_reason "tool_calls" without any call as a plain answer', async () => {
    const { events } = await runChatRequest([chatText('Just text.', { finishReason: 'tool_calls' })], withTools());
    expect(itemsOf(events)).toEqual([{ type: 'message', role: 'assistant', content: 'Just text.' }]);
    expect(doneOf(events)).toMatchObject({ status: 'completed' });
  });

  it('drops a call cut by the output limit (finish_reason "length"): incomplete, max_output_tokens, no call', async () => {
    const { events } = await runChatRequest(
      [{ content: 'Let me', toolCalls: [chatCall('echo', '{"text":"hal', { id: 'c1' })], finishReason: 'length' }],
      withTools(),
    );
    expect(calls(itemsOf(events))).toEqual([]);
    expect(doneOf(events)).toMatchObject({ status: 'incomplete', incomplete_reason: 'max_output_tokens' });
  });

  it('maps a flattened namespaced call back to its namespace', async () => {
    const ns = { type: 'namespace' as const, name: 'widgets', description: 'Widget tools', tools: [{ ...echoTool, name: 'create_widget' }] };
    const { events, server } = await runChatRequest([{ toolCalls: [chatCall('widgets__create_widget', { name: 'w' }, { id: 'c1' })] }], chatRequest({ tools: [ns] }));
    expect(server.requests[0].body.tools.map((t: any) => t.function.name)).toEqual(['widgets__create_widget']);
    expect(calls(itemsOf(events))).toEqual([{ type: 'function_call', call_id: 'c1', name: 'create_widget', namespace: 'widgets', arguments: '{"name":"w"}' }]);
  });

  it('does not pass on calls made to a request without tools: a tool_calls_ignored warning instead', async () => {
    const { events, server } = await runChatRequest(
      [{ content: 'Final answer.', toolCalls: [chatCall('echo', { text: 'x' }, { id: 'c9' })] }],
      withTools({ toolChoice: 'none' }),
    );
    expect(server.requests[0].body.tools).toBeUndefined();
    expect(itemsOf(events)).toEqual([{ type: 'message', role: 'assistant', content: 'Final answer.' }]);
    expect(events.find((e) => e.type === 'warning')).toMatchObject({ code: 'tool_calls_ignored', call_ids: ['c9'] });
  });

  it('reads a stream that never sends a finish_reason but ends with [DONE] as finished: stop, usage kept', async () => {
    const chunk = (extra: Record<string, unknown>) => ({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', ...extra });
    const { events } = await runChatRequest(
      [{ data: [chunk({ choices: [{ index: 0, delta: { role: 'assistant' } }] }), chunk({ choices: [{ index: 0, delta: { content: 'A whole answer.' } }] }), chunk({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 4 } }), '[DONE]'] }],
      withTools(),
    );
    expect(itemsOf(events)).toEqual([{ type: 'message', role: 'assistant', content: 'A whole answer.' }]);
    expect(doneOf(events)).toEqual({ type: 'response.done', status: 'completed', usage: { input_tokens: 12, output_tokens: 4 } });
  });

  it('runs the calls of a stream without finish_reason that ends with [DONE] (read as tool_calls)', async () => {
    const { events } = await runChatRequest([{ toolCalls: [chatCall('echo', { text: 'x' }, { id: 'c1' })], finishReason: null }], withTools());
    expect(calls(itemsOf(events))).toEqual([{ type: 'function_call', call_id: 'c1', name: 'echo', arguments: '{"text":"x"}' }]);
    expect(doneOf(events)).toMatchObject({ status: 'completed', usage: { input_tokens: 10, output_tokens: 5 } });
  });

  it('reports a stream that ends without finish_reason and without [DONE] as cut: no response.done, stream_interrupted saying why', async () => {
    const { events, error } = await runChatRequest([{ content: 'half an answer', finishReason: null, done: false }], withTools());
    expect(error).toMatchObject({ code: 'stream_interrupted', message: expect.stringContaining('ended without a finish_reason') });
    expect(events.map((e) => e.type)).not.toContain('response.done');
    expect(events.filter((e) => e.type === 'text.delta').length).toBeGreaterThan(0);
  });
});
