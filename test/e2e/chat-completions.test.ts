/**
 * The service speaking Chat Completions: MODEL_API=chat, and a request's `model_api`, against a
 * scripted Chat Completions server, over the real HTTP API with a real SSE client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatCall, chatText, startScriptedChatServer, type ScriptedChatServer } from '../support/scripted-chat-server.js';
import { api, startTestService, type TestService } from './support/service.js';
import { readSse } from './support/sse-client.js';

/** A scripted Chat Completions server and the service using it (env added), for one describe block. */
function useChatService(env: Record<string, string> = {}): { readonly model: ScriptedChatServer; readonly svc: TestService } {
  const h = {} as { model: ScriptedChatServer; svc: TestService };
  beforeAll(async () => {
    h.model = await startScriptedChatServer();
    h.svc = await startTestService({ modelBaseURL: h.model.baseURL, env });
  });
  afterAll(async () => {
    await h.svc?.close();
    await h.model?.close();
  });
  return h;
}

describe('MODEL_API=chat', () => {
  const h = useChatService({ MODEL_API: 'chat' });

  it('runs a tool turn over /chat/completions and streams reasoning, tool and answer events', async () => {
    h.model.push(
      { reasoning: 'Plan first.', toolCalls: [chatCall('todo', { todos: [{ id: '1', content: 'Back up', status: 'pending' }] }, { id: 'call_t1' })] },
      (body) => chatText(`Planned after ${body.messages.filter((m: { role: string }) => m.role === 'tool').length} tool result.`),
    );
    const created = await api(h.svc.url, 'POST', '/v1/turns', { input: 'Plan a backup', tools: ['todo'] });
    expect(created.status).toBe(202);
    const stream = await readSse(`${h.svc.url}/v1/turns/${created.body.id}/events`);
    const kinds = stream.events.map((e) => e.event);
    expect(kinds).toContain('reasoning.delta');
    expect(kinds.filter((k) => k === 'tool.completed')).toHaveLength(1);
    expect(stream.events.at(-1)?.json).toMatchObject({ type: 'turn.completed', output_text: 'Planned after 1 tool result.', steps: 2 });
    expect(h.model.requests.map((r) => r.url)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
    expect(h.model.requests[1].body.messages.slice(-2)).toEqual([
      expect.objectContaining({ role: 'assistant', reasoning_content: 'Plan first.', tool_calls: [expect.objectContaining({ id: 'call_t1' })] }),
      expect.objectContaining({ role: 'tool', tool_call_id: 'call_t1' }),
    ]);
  });
});

describe('MODEL_API=chat, an answer of only calls to tools the turn did not offer', () => {
  const h = useChatService({ MODEL_API: 'chat' });

  it('fails empty_response saying the model called tools that were not offered, naming them (bounded), and what to do', async () => {
    h.model.push({ toolCalls: [chatCall('todo', { todos: [] }, { id: 'call_n1' }), chatCall('web_search', { query: 'x' }, { id: 'call_n2' })] });
    const r = await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'Plan a backup', tools: [] });
    expect(h.model.requests.at(-1)!.body.tools ?? []).toEqual([]);
    const error = {
      code: 'empty_response',
      message: 'the model answered only with calls to tools this turn did not offer ("todo", "web_search"), which were not run, and no text: give the turn the tools it calls (the request\'s "tools" families), or ask for an answer in text in the instructions.',
    };
    expect(r.body).toMatchObject({ status: 'failed', steps: 1, error });
    const stream = await readSse(`${h.svc.url}/v1/turns/${r.body.id}/events`);
    expect(stream.events.find((e) => e.event === 'model.warning')?.json).toMatchObject({ code: 'tool_calls_ignored', call_ids: ['call_n1', 'call_n2'] });
    expect(stream.events.at(-1)?.json).toMatchObject({ type: 'turn.failed', error });
    expect(stream.events.map((e) => e.event)).not.toContain('tool.started');
  });

  it('names at most five distinct tools, each clipped and with unsafe characters escaped, and counts the rest', async () => {
    const names = ['a\u202Eb', 'x'.repeat(100), 'c', 'c', 'd', 'e', 'f', 'g'];
    h.model.push({ toolCalls: names.map((n, i) => chatCall(n, {}, { id: `call_m${i}` })) });
    const r = await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'go', tools: [] });
    expect(r.body.error.code).toBe('empty_response');
    expect(r.body.error.message).toContain(`did not offer ("a\\u202Eb", "${'x'.repeat(64)}"… (100 characters), "c", "d", "e" and 2 more), which were not run`);
    expect(r.body.error.message).not.toMatch(/\u202E/u);
  });
});

describe('MODEL_API=chat history over several tool rounds', () => {
  const h = useChatService({ MODEL_API: 'chat' });
  const todo = (id: string, content: string) => chatCall('todo', { todos: [{ id, content, status: 'pending' }] }, { id: `call_${id}` });
  /** Each message as [role, call ids | tool_call_id | content]. */
  const shape = (messages: { role: string; content?: unknown; tool_calls?: { id: string }[]; tool_call_id?: string }[]) =>
    messages.map((m) => [m.role, m.tool_calls ? m.tool_calls.map((c) => c.id) : (m.tool_call_id ?? m.content)]);

  it('sends each round\'s calls in their own assistant message, followed by that round\'s tool messages in call order', async () => {
    h.model.push(
      { toolCalls: [todo('a', 'Back up')] },
      { reasoning: 'Two at once.', toolCalls: [todo('b', 'Copy'), todo('c', 'Verify')] },
      { toolCalls: [todo('d', 'Report')] },
      chatText('All planned.'),
    );
    const r = await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'Plan a backup', tools: ['todo'] });
    expect(r.body).toMatchObject({ status: 'completed', output_text: 'All planned.' });
    expect(h.model.requests).toHaveLength(4);
    const last = h.model.requests[3].body.messages;
    expect(shape(last.filter((m: { role: string }) => m.role !== 'system'))).toEqual([
      ['user', 'Plan a backup'],
      ['assistant', ['call_a']],
      ['tool', 'call_a'],
      ['assistant', ['call_b', 'call_c']],
      ['tool', 'call_b'],
      ['tool', 'call_c'],
      ['assistant', ['call_d']],
      ['tool', 'call_d'],
    ]);
    const assistants = last.filter((m: { role: string }) => m.role === 'assistant');
    expect(assistants.map((m: { content: unknown }) => m.content)).toEqual([null, null, null]);
    expect(assistants[1]).toMatchObject({ reasoning_content: 'Two at once.' });
    // Every earlier request carried the same history up to its round: the prefix never changes.
    expect(shape(h.model.requests[2].body.messages)).toEqual(shape(last).slice(0, -2));
  });
});

describe('reasoning from a server that sends it under both names', () => {
  const h = useChatService({ MODEL_API: 'chat' });
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });

  it('streams and sends back each delta once when it carries both reasoning_content and reasoning', async () => {
    h.model.push(
      {
        data: [
          chunk({ role: 'assistant', content: '' }),
          chunk({ reasoning_content: 'think A ', reasoning: 'think A ' }),
          chunk({ reasoning_content: 'think B', reasoning: 'think B' }),
          chunk({ tool_calls: [{ index: 0, id: 'call_r1', type: 'function', function: { name: 'todo', arguments: '{"todos":[]}' } }] }),
          chunk({}, 'tool_calls'),
          '[DONE]',
        ],
      },
      chatText('Done.'),
    );
    const created = await api(h.svc.url, 'POST', '/v1/turns', { input: 'Plan', tools: ['todo'] });
    const stream = await readSse(`${h.svc.url}/v1/turns/${created.body.id}/events`);
    expect(stream.events.at(-1)?.json).toMatchObject({ type: 'turn.completed', output_text: 'Done.' });
    const reasoning = stream.events.filter((e) => e.event === 'reasoning.delta').map((e) => e.json.text).join('');
    expect(reasoning).toBe('think A think B');
    const assistant = h.model.requests.at(-1)!.body.messages.find((m: { role: string }) => m.role === 'assistant');
    expect(assistant).toMatchObject({ reasoning_content: 'think A think B', tool_calls: [expect.objectContaining({ id: 'call_r1' })] });
    expect(assistant.reasoning).toBeUndefined();
  });
});

describe('a stream that never sends a finish_reason', () => {
  const h = useChatService({ MODEL_API: 'chat' });
  const chunk = (extra: Record<string, unknown>) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', ...extra });
  const frames = [
    chunk({ choices: [{ index: 0, delta: { role: 'assistant' } }] }),
    chunk({ choices: [{ index: 0, delta: { content: 'Finished without a finish reason.' } }] }),
    chunk({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 6 } }),
  ];

  it('completes the turn, with its usage, when the stream ends with [DONE]', async () => {
    h.model.push({ data: [...frames, '[DONE]'] });
    const r = await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
    expect(r.body).toMatchObject({ status: 'completed', output_text: 'Finished without a finish reason.', usage: { input_tokens: 9, output_tokens: 6 } });
  });

  it('fails the turn with stream_interrupted when the body ends without [DONE]', async () => {
    h.model.push({ data: frames });
    const r = await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
    expect(r.body).toMatchObject({ status: 'failed', error: { code: 'stream_interrupted' }, usage: null });
  });
});

describe('usage from a server that sends none', () => {
  const h = useChatService({ MODEL_API: 'chat' });

  it('is null (unknown) on turn.completed and on the stored turn, not zeros', async () => {
    h.model.push(chatText('No usage here.', { usage: null }));
    const r = await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
    expect(r.body).toMatchObject({ status: 'completed', output_text: 'No usage here.', usage: null });
    const stream = await readSse(`${h.svc.url}/v1/turns/${r.body.id}/events`);
    expect(stream.events.at(-1)?.json).toMatchObject({ type: 'turn.completed', usage: null });
    expect((await api(h.svc.url, 'GET', `/v1/turns/${r.body.id}`)).body.usage).toBeNull();
    h.model.push(chatText('With usage.', { usage: { prompt_tokens: 7, completion_tokens: 2 } }));
    const known = await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
    expect(known.body.usage).toEqual({ input_tokens: 7, output_tokens: 2 });
    // Cut after the response headers, before the first chunk: the server had accepted the request.
    h.model.push({ ...chatText('never sent'), cutAfter: 0 });
    const cut = await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
    expect(cut.body).toMatchObject({ status: 'failed', error: { code: 'stream_interrupted' }, usage: null });
  });
});

describe('a request\'s model_api', () => {
  const h = useChatService();

  it('sends a turn with model_api "chat" to /chat/completions while MODEL_API stays responses', async () => {
    h.model.push(chatText('Hello from chat.'));
    const r = await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi', model_api: 'chat' });
    expect(r.body).toMatchObject({ status: 'completed', output_text: 'Hello from chat.' });
    expect(h.model.requests.at(-1)?.url).toBe('/v1/chat/completions');
  });

  it('refuses an unknown model_api with 400 naming the field', async () => {
    const r = await api(h.svc.url, 'POST', '/v1/turns', { input: 'hi', model_api: 'completions' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.details.map((d: { path: string }) => d.path)).toContain('model_api');
  });
});

describe('model_api without a client for it', () => {
  it('answers 400 model_api_unavailable and says how to fix it', async () => {
    const { createResponsesModel } = await import('../../src/model/responses-model.js');
    const only = createResponsesModel({ stream: async function* () {} });
    const svc = await startTestService({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, overrides: { modelClient: only } });
    try {
      const r = await api(svc.url, 'POST', '/v1/turns', { input: 'hi', model_api: 'chat' });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'model_api_unavailable', message: expect.stringContaining('leave it out to use MODEL_API (responses)') });
    } finally {
      await svc.close();
    }
  });
});
