import { describe, expect, it } from 'vitest';
import type { ModelStreamEvent } from '../../src/model/port.js';
import { chatRequest, doneOf, itemsOf, runChatRequest } from '../support/chat-model-harness.js';
import { chatCall, chatText, loadChatFixture } from '../support/scripted-chat-server.js';

const weather = { type: 'function' as const, name: 'weather', description: 'Weather', parameters: { type: 'object', properties: { location: { type: 'string' } } }, strict: false };
const deltas = (events: ModelStreamEvent[], type: 'text.delta' | 'reasoning.delta') =>
  events.flatMap((e) => (e.type === type ? [e.text] : [])).join('');

describe('Chat Completions adapter: text, reasoning and usage', () => {
  it('streams text deltas as they arrive and ends with the message and the final chunk\'s usage', async () => {
    const { events } = await runChatRequest([chatText('Hello big world', { usage: { prompt_tokens: 12, completion_tokens: 3 } })]);
    expect(events.filter((e) => e.type === 'text.delta').length).toBe(3);
    expect(deltas(events, 'text.delta')).toBe('Hello big world');
    expect(itemsOf(events)).toEqual([{ type: 'message', role: 'assistant', content: 'Hello big world' }]);
    expect(doneOf(events)).toEqual({ type: 'response.done', status: 'completed', usage: { input_tokens: 12, output_tokens: 3 } });
  });

  it('reads usage sent on the finish chunk too', async () => {
    const { events } = await runChatRequest([chatText('ok', { usageOnFinishChunk: true, usage: { prompt_tokens: 7, completion_tokens: 1 } })]);
    expect(doneOf(events)).toMatchObject({ usage: { input_tokens: 7, output_tokens: 1 } });
  });

  it('reports usage as unknown (absent), not zero, when the server sends none', async () => {
    const { events } = await runChatRequest([chatText('ok', { usage: null })]);
    expect(doneOf(events)).toEqual({ type: 'response.done', status: 'completed' });
  });

  for (const field of ['reasoning_content', 'reasoning'] as const) {
    it(`streams ${field} deltas as reasoning.delta and keeps the reasoning as an item before the calls`, async () => {
      const { events } = await runChatRequest(
        [{ reasoning: 'I will check the weather.', reasoningField: field, toolCalls: [chatCall('weather', { location: 'Paris' }, { id: 'c1' })] }],
        chatRequest({ tools: [weather] }),
      );
      expect(deltas(events, 'reasoning.delta')).toBe('I will check the weather.');
      expect(itemsOf(events).map((i) => i.type)).toEqual(['reasoning', 'function_call']);
      expect(itemsOf(events)[0]).toEqual({ type: 'reasoning', summary: ['I will check the weather.'], providerData: { chat_reasoning_field: field } });
    });
  }

  it('sends the reasoning back on the assistant message that made the calls, under the same field', async () => {
    const first = await runChatRequest(
      [{ reasoning: 'Need weather.', reasoningField: 'reasoning', toolCalls: [chatCall('weather', { location: 'Paris' }, { id: 'c1' })] }],
      chatRequest({ tools: [weather] }),
    );
    const history = [...chatRequest().input, ...itemsOf(first.events), { type: 'function_call_output' as const, call_id: 'c1', output: 'sunny' }];
    const { server } = await runChatRequest([chatText('Sunny.')], chatRequest({ tools: [weather], input: history }));
    expect(server.requests[0].body.messages.slice(1)).toEqual([
      { role: 'assistant', content: null, reasoning: 'Need weather.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"location":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
    ]);
  });
});

describe('Chat Completions adapter: errors', () => {
  it('maps an HTTP error with a string code to that code, with the server\'s message', async () => {
    const { error, server } = await runChatRequest([{ httpError: { status: 429, body: { error: { message: 'Slow down', type: 'requests', code: 'rate_limit_exceeded', param: null } } } }]);
    expect(error).toEqual({ code: 'rate_limit_exceeded', message: `the model endpoint ${server.baseURL} answered HTTP 429: Slow down`, status: 429 });
  });

  it('maps an HTTP error with a numeric code (llama.cpp, OpenRouter) to http_<status>', async () => {
    const { error, server } = await runChatRequest([{ httpError: { status: 400, body: { error: { code: 400, message: 'the request exceeds the available context size', type: 'exceed_context_size_error' } } } }]);
    expect(error).toEqual({ code: 'http_400', message: `the model endpoint ${server.baseURL} answered HTTP 400: the request exceeds the available context size`, status: 400 });
  });

  it('keeps the message of an error body without an "error" key (older vLLM)', async () => {
    const { error, server } = await runChatRequest([{ httpError: { status: 400, body: { object: 'error', message: "This model's maximum context length is 4096 tokens.", type: 'BadRequestError', param: null, code: 400 } } }]);
    expect(error).toEqual({ code: 'http_400', message: `the model endpoint ${server.baseURL} answered HTTP 400: This model's maximum context length is 4096 tokens.`, status: 400 });
  });

  it('retries a 500 through the SDK and then succeeds', async () => {
    const { events, server } = await runChatRequest([{ httpError: { status: 500 } }, chatText('ok')], chatRequest(), { maxRetries: 1 });
    expect(server.requests).toHaveLength(2);
    expect(itemsOf(events)).toEqual([{ type: 'message', role: 'assistant', content: 'ok' }]);
  });

  it('maps an error sent inside the stream to its code (or type), without a status', async () => {
    const { error, server } = await runChatRequest([{ data: [{ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] }, { error: { message: 'model crashed', type: 'server_error', code: 500 } }] }]);
    expect(error).toEqual({ code: 'http_500', message: `the model endpoint ${server.baseURL} sent an error in its stream: model crashed` });
  });

  it('reports a socket cut mid-stream as stream_interrupted', async () => {
    const { error } = await runChatRequest([{ ...chatText('one two three four'), cutAfter: 3 }]);
    expect(error?.code).toBe('stream_interrupted');
  });

  it('reports an unreachable server as connection_error', async () => {
    const { createChatModel } = await import('../../src/model/chat-model.js');
    const { createOpenAIChatClient } = await import('../../src/model/openai-chat-client.js');
    const model = createChatModel(createOpenAIChatClient({ baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0 }));
    const err = await (async () => {
      try {
        for await (const _ of model.stream(chatRequest(), new AbortController().signal)) void _;
      } catch (e) {
        return e as { code: string; message: string };
      }
    })();
    expect(err?.code).toBe('connection_error');
    expect(err?.message).toMatch(/^could not connect to the model endpoint http:\/\/127\.0\.0\.1:9\/v1/);
  });

  it('ends quietly, without an error, when the turn is cancelled mid-stream', async () => {
    const turn = new AbortController();
    const { createChatModel } = await import('../../src/model/chat-model.js');
    const { createOpenAIChatClient } = await import('../../src/model/openai-chat-client.js');
    const { startScriptedChatServer } = await import('../support/scripted-chat-server.js');
    const server = await startScriptedChatServer([{ ...chatText('one two three four five six'), delayMs: 20 }]);
    const model = createChatModel(createOpenAIChatClient({ baseURL: server.baseURL, maxRetries: 0 }));
    const seen: string[] = [];
    for await (const e of model.stream(chatRequest(), turn.signal)) {
      seen.push(e.type);
      if (e.type === 'text.delta') turn.abort();
    }
    await server.close();
    expect(seen).toEqual(['text.delta']);
  });
});

describe('Chat Completions adapter: replay of captured streams (test/fixtures/chat-completions)', () => {
  it('OpenAI gpt-4.1-nano text: every delta passed on, usage from the trailing choices:[] chunk', async () => {
    const { events } = await runChatRequest([{ fixture: 'openai-text.chunks.txt' }]);
    const text = deltas(events, 'text.delta');
    expect(text).toMatch(/^\*\*Holiday Name:\*\* Harmony Day/);
    expect(text).toHaveLength(1724);
    expect(itemsOf(events)).toEqual([{ type: 'message', role: 'assistant', content: text }]);
    expect(doneOf(events)).toMatchObject({ status: 'completed', usage: { input_tokens: 16, output_tokens: 300 } });
  });

  it('DeepSeek reasoner tool call: reasoning_content streamed and kept, one call assembled from 30+ deltas', async () => {
    const { events } = await runChatRequest([{ fixture: 'deepseek-tool-call.chunks.txt' }], chatRequest({ tools: [weather] }));
    expect(deltas(events, 'reasoning.delta')).toMatch(/^The user is asking for the weather in San Francisco/);
    const items = itemsOf(events);
    expect(items.map((i) => i.type)).toEqual(['reasoning', 'function_call']);
    expect(items[1]).toEqual({ type: 'function_call', call_id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', name: 'weather', arguments: '{"location": "San Francisco"}' });
    expect(doneOf(events)).toMatchObject({ status: 'completed', usage: { input_tokens: 339, output_tokens: 83 } });
  });

  it('DeepSeek reasoner text: 606 characters of reasoning, then the answer', async () => {
    const { events } = await runChatRequest([{ fixture: 'deepseek-reasoning.chunks.txt' }]);
    expect(deltas(events, 'reasoning.delta')).toHaveLength(606);
    expect(itemsOf(events).at(-1)).toEqual({ type: 'message', role: 'assistant', content: 'The word "strawberry" contains three "r"s.' });
  });

  it('Groq llama-3.3 tool call sent whole in one chunk, usage on the finish chunk', async () => {
    const { events } = await runChatRequest([{ fixture: 'groq-tool-call.chunks.txt' }], chatRequest({ tools: [weather] }));
    expect(itemsOf(events)).toEqual([{ type: 'function_call', call_id: 'tk85n1k4m', name: 'weather', arguments: '{}' }]);
    expect(doneOf(events)).toEqual({ type: 'response.done', status: 'completed', usage: { input_tokens: 210, output_tokens: 15 } });
  });

  it('a vLLM-style stream (chatcmpl-tool- id) whose second delta has an empty name and all the arguments', async () => {
    const { events } = await runChatRequest([{ fixture: 'mistral-incremental-tool-call.chunks.txt' }], chatRequest({ tools: [{ ...weather, name: 'webSearchTool' }] }));
    expect(itemsOf(events)).toEqual([{ type: 'function_call', call_id: 'chatcmpl-tool-9f149c74c42f265b', name: 'webSearchTool', arguments: '{"query": "current Berlin weather"}' }]);
    expect(doneOf(events)).toMatchObject({ usage: { input_tokens: 171, output_tokens: 14 } });
  });

  it('xAI grok-3-mini: chunks without finish_reason until the end, reasoning, one whole call', async () => {
    const lines = loadChatFixture('xai-tool-call.chunks.txt');
    expect(lines.length).toBe(230);
    const { events } = await runChatRequest([{ fixture: 'xai-tool-call.chunks.txt' }], chatRequest({ tools: [weather] }));
    expect(itemsOf(events).at(-1)).toEqual({ type: 'function_call', call_id: 'call_79382389', name: 'weather', arguments: '{"location":"San Francisco"}' });
    expect(doneOf(events)).toMatchObject({ usage: { input_tokens: 307, output_tokens: 26 } });
  });
});

describe('a transcript the Chat Completions adapter produced, continued on the Responses API', () => {
  it('sends its messages, calls and outputs, and leaves out its reasoning (no Responses form)', async () => {
    const { toResponsesInput } = await import('../../src/model/responses-items.js');
    const first = await runChatRequest(
      [{ reasoning: 'Need weather.', content: 'Checking.', toolCalls: [chatCall('weather', { location: 'Oslo' }, { id: 'c1' })] }],
      chatRequest({ tools: [weather] }),
    );
    const history = [...chatRequest().input, ...itemsOf(first.events), { type: 'function_call_output' as const, call_id: 'c1', output: 'rain' }];
    expect(toResponsesInput(history)).toEqual([
      { type: 'message', role: 'user', content: 'hello' },
      { type: 'message', role: 'assistant', content: 'Checking.' },
      { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{"location":"Oslo"}' },
      { type: 'function_call_output', call_id: 'c1', output: 'rain' },
    ]);
  });
});
