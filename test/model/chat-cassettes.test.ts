/**
 * Replays of real Chat Completions exchanges recorded by pydantic-ai's test suite (VCR cassettes kept
 * unmodified in test/fixtures/chat-completions/pydantic-ai; SOURCES.md names repo, path, commit and
 * licence). The scripted server sends each recorded body byte for byte, so these runs see exactly
 * what vLLM, OpenAI, OpenRouter and Groq put on the wire.
 */
import { describe, expect, it } from 'vitest';
import type { FunctionToolDefinition, ModelStreamEvent } from '../../src/model/port.js';
import { chatRequest, doneOf, itemsOf, runChatRequest } from '../support/chat-model-harness.js';
import { loadChatCassette } from '../support/scripted-chat-server.js';

const cassette = (name: string, interaction = 0) => ({ cassette: `pydantic-ai/${name}.yaml`, interaction });
const text = (events: ModelStreamEvent[]) => events.flatMap((e) => (e.type === 'text.delta' ? [e.text] : [])).join('');
const reasoning = (events: ModelStreamEvent[]) => events.flatMap((e) => (e.type === 'reasoning.delta' ? [e.text] : [])).join('');
const fn = (name: string, properties: { [key: string]: { type: string } }): FunctionToolDefinition => ({ type: 'function', name, description: '', parameters: { type: 'object', properties }, strict: false });

describe('recorded vLLM stream (vLLM 0.24 behind Crusoe, Llama-3.3-70B)', () => {
  it('is a real vLLM capture: its usage chunk carries the vllm system_fingerprint', () => {
    expect(loadChatCassette('pydantic-ai/test_crusoe_model_streaming.yaml').body).toContain('"system_fingerprint":"vllm-0.24.0-tp4-6d31f84d"');
  });

  it('ignores vLLM-only fields (prompt_token_ids, token_ids, stop_reason) and reads usage from the choices:[] chunk', async () => {
    const { events, error } = await runChatRequest([cassette('test_crusoe_model_streaming')]);
    expect(error).toBeUndefined();
    expect(text(events)).toBe('1, 2, 3, 4, 5');
    expect(itemsOf(events)).toEqual([{ type: 'message', role: 'assistant', content: '1, 2, 3, 4, 5' }]);
    expect(doneOf(events)).toEqual({ type: 'response.done', status: 'completed', usage: { input_tokens: 46, output_tokens: 14 } });
  });
});

describe('recorded OpenAI Chat Completions tool round (gpt-4o-mini)', () => {
  const getCapital = fn('get_capital', { country: { type: 'string' } });

  it('assembles the strict call from argument deltas, with the call id of its first delta', async () => {
    const { events } = await runChatRequest([cassette('test_run_stream_sync_streams_real_model', 0)], chatRequest({ tools: [getCapital] }));
    expect(itemsOf(events)).toEqual([{ type: 'function_call', call_id: 'call_ZR5UUuTt3pf61kjwAJIYdVMj', name: 'get_capital', arguments: '{"country":"UK"}' }]);
    expect(text(events)).toBe('');
    expect(doneOf(events)).toMatchObject({ status: 'completed', usage: { input_tokens: 53, output_tokens: 15 } });
  });

  it('then streams the answer that followed the tool output', async () => {
    const { events } = await runChatRequest([cassette('test_run_stream_sync_streams_real_model', 1)], chatRequest({ tools: [getCapital] }));
    expect(itemsOf(events)).toEqual([{ type: 'message', role: 'assistant', content: 'The capital of the UK is London.' }]);
    expect(doneOf(events)).toMatchObject({ usage: { input_tokens: 78, output_tokens: 9 } });
  });
});

describe('recorded OpenRouter stream (openai/o3)', () => {
  it('skips ": OPENROUTER PROCESSING" comment frames and encrypted reasoning_details; text and usage arrive whole', async () => {
    expect(loadChatCassette('pydantic-ai/test_openrouter_stream_with_reasoning.yaml').body).toMatch(/^: OPENROUTER PROCESSING$/m);
    const { events, error } = await runChatRequest([cassette('test_openrouter_stream_with_reasoning')]);
    expect(error).toBeUndefined();
    expect(text(events)).toMatch(/^I’m ChatGPT, a large-language-model assistant created by OpenAI\./);
    expect(reasoning(events)).toBe('');
    expect(itemsOf(events)).toEqual([{ type: 'message', role: 'assistant', content: text(events) }]);
    expect(doneOf(events)).toMatchObject({ status: 'completed', usage: { input_tokens: 9, output_tokens: 104 } });
  });
});

describe('recorded Groq streams (openai/gpt-oss-120b): reasoning in delta.reasoning, an error frame mid-stream', () => {
  const tool = fn('get_something_by_name', { name: { type: 'string' } });

  it('an `event: error` frame after reasoning deltas becomes a model error with the server\'s code and message', async () => {
    const { events, error, server } = await runChatRequest([cassette('test_tool_use_failed_error_streaming', 0)], chatRequest({ tools: [tool] }));
    expect(reasoning(events)).toMatch(/^We need to call the tool with invalid/);
    expect(itemsOf(events)).toEqual([]);
    expect(error).toMatchObject({ code: 'tool_use_failed' });
    expect(error?.message.startsWith(`the model endpoint ${server.baseURL} sent an error in its stream: Tool call validation failed: `)).toBe(true);
    expect(error?.message).toMatch(/get_something_by_name did not match schema/);
  });

  it('the retried request: reasoning kept under the `reasoning` field, then one whole call with an fc_ id', async () => {
    const { events } = await runChatRequest([cassette('test_tool_use_failed_error_streaming', 1)], chatRequest({ tools: [tool] }));
    const items = itemsOf(events);
    expect(items.map((i) => i.type)).toEqual(['reasoning', 'function_call']);
    expect(items[0]).toMatchObject({ providerData: { chat_reasoning_field: 'reasoning' } });
    expect(items[1]).toEqual({ type: 'function_call', call_id: 'fc_bfb39741-3748-4def-9886-a93fc9c64a90', name: 'get_something_by_name', arguments: '{"name":"example"}' });
    expect(doneOf(events)).toMatchObject({ usage: { input_tokens: 304, output_tokens: 49 } });
  });

  it('the final answer after the tool output', async () => {
    const { events } = await runChatRequest([cassette('test_tool_use_failed_error_streaming', 2)], chatRequest({ tools: [tool] }));
    expect(itemsOf(events).at(-1)).toEqual({ type: 'message', role: 'assistant', content: 'The tool returned the expected result for the valid call.' });
  });
});
