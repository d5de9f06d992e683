/**
 * A model endpoint that answers 2xx with something other than an event stream — an HTML page or a
 * JSON document, as a wrong OPENAI_BASE_URL gives — fails the turn with `not_event_stream`, naming
 * the Content-Type received and OPENAI_BASE_URL, on both wire protocols; not `stream_interrupted`.
 * A server that ignored `stream: true` and answered with the whole answer as JSON (a
 * `chat.completion`, a Responses `response`) is read as that answer: text and tool calls alike.
 * Through the real service and a real HTTP server on loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { message } from '../support/scripted-responses-server.js';
import { api, startTestService, type TestService } from './support/service.js';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';

/** What the wrong server answers to every request: status, Content-Type (none when null) and body. */
let answer: { type: string | null; body: string } = { type: 'text/html; charset=utf-8', body: '<html><body>Welcome to nginx!</body></html>' };
/** Answers used first, one per request, before `answer`. */
const queue: { type: string | null; body: string }[] = [];
const seen: string[] = [];
const bodies: Record<string, unknown>[] = [];
let server: Server;
let baseURL: string;
let svc: TestService;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      bodies.push(JSON.parse(text || '{}'));
      const a = queue.shift() ?? answer;
      res.writeHead(200, a.type === null ? {} : { 'content-type': a.type });
      res.end(a.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  svc = await startTestService({ modelBaseURL: baseURL });
});
// An answer a failed test left unused is not given to the next test.
afterEach(() => {
  queue.length = 0;
});
afterAll(async () => {
  await svc?.close();
  await new Promise((resolve) => server?.close(resolve));
});

const hint = "check OPENAI_BASE_URL — it must be the API's base URL, such as https://api.openai.com/v1 or http://127.0.0.1:8000/v1";

describe('a 2xx model answer that is not an event stream', () => {
  it.each([
    ['responses', '/responses'],
    ['chat', '/chat/completions'],
  ])('fails a %s turn with not_event_stream naming the Content-Type and OPENAI_BASE_URL', async (api_, path) => {
    answer = { type: 'text/html; charset=utf-8', body: '<html><body>Welcome to nginx!</body></html>' };
    const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi', model_api: api_ });
    expect(turn.body.status).toBe('failed');
    expect(turn.body.error).toEqual({
      code: 'not_event_stream',
      message: `the model endpoint answered ${baseURL}${path} with Content-Type "text/html" instead of an event stream (text/event-stream): ${hint}`,
    });
    expect(seen.at(-1)).toBe(`POST ${path}`);
  });

  it('says so for a JSON document too (a server that ignored stream: true, or another API)', async () => {
    answer = { type: 'application/json', body: '{"status":"ok"}' };
    const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
    expect(turn.body.error).toMatchObject({ code: 'not_event_stream', message: expect.stringContaining('Content-Type "application/json" instead of an event stream') });
  });
});

describe('a server that ignored stream: true and answered with the whole answer as JSON', () => {
  const todoArgs = JSON.stringify({ todos: [{ id: '1', content: 'plan', status: 'in_progress' }] });
  const json = (body: unknown) => ({ type: 'application/json', body: JSON.stringify(body) });

  it('runs a chat turn from chat.completion objects: the tool call runs, the answer text is the output', async () => {
    queue.push(
      json({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'todo', arguments: todoArgs } }] }, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } }),
      json({ id: 'chatcmpl-2', object: 'chat.completion', created: 2, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'all done' }, finish_reason: 'stop' }], usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } }),
    );
    const from = bodies.length;
    const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'plan it', model_api: 'chat', tools: ['todo'] });
    expect(turn.body).toMatchObject({ status: 'completed', output_text: 'all done', stop_reason: 'stop' });
    expect(turn.body.usage).toEqual({ input_tokens: 16, output_tokens: 5 });
    // The second request carries the todo call and its output: the call ran.
    const second = bodies[from + 1] as { messages: { role: string; tool_call_id?: string; content?: unknown }[] };
    const tool = second.messages.find((m) => m.role === 'tool');
    expect(tool).toMatchObject({ tool_call_id: 'call_1' });
    expect(JSON.stringify(tool!.content)).not.toMatch(/Error/);
  });

  it('runs a Responses turn from response objects: the function call runs, the message text is the output', async () => {
    queue.push(
      json({ id: 'resp_1', object: 'response', status: 'completed', model: 'm', output: [{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'todo', arguments: todoArgs, status: 'completed' }], usage: { input_tokens: 7, output_tokens: 3, total_tokens: 10 } }),
      json({ id: 'resp_2', object: 'response', status: 'completed', model: 'm', output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'all done', annotations: [] }] }], usage: { input_tokens: 9, output_tokens: 2, total_tokens: 11 } }),
    );
    const from = bodies.length;
    const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'plan it', model_api: 'responses', tools: ['todo'] });
    expect(turn.body).toMatchObject({ status: 'completed', output_text: 'all done', stop_reason: 'stop' });
    expect(turn.body.usage).toEqual({ input_tokens: 16, output_tokens: 5 });
    const second = bodies[from + 1] as { input: { type?: string; call_id?: string; output?: unknown }[] };
    const output = second.input.find((i) => i.type === 'function_call_output');
    expect(output).toMatchObject({ call_id: 'call_1' });
    expect(JSON.stringify(output!.output)).not.toMatch(/Error/);
  });

  it('a response object without a final status fails saying the endpoint answered a JSON response object without completed/incomplete/failed, not that a stream ended early', async () => {
    for (const [body, status] of [
      [{ object: 'response', output: [] }, 'no status'],
      [{ id: 'resp_3', object: 'response', status: 'in_progress', output: [] }, 'status "in_progress"'],
    ] as const) {
      queue.push(json(body));
      const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi', model_api: 'responses' });
      expect(turn.body.status).toBe('failed');
      expect(turn.body.error).toEqual({
        code: 'stream_interrupted',
        message: `the model endpoint ${baseURL} answered a whole JSON response object (not a stream) with ${status}, not a final one (completed, incomplete or failed): nothing of an answer to read`,
      });
    }
  });

  it('still refuses a JSON document that is not the protocol\'s answer (a chat.completion sent to a Responses turn)', async () => {
    queue.push(json({ id: 'chatcmpl-3', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'stop' }] }));
    const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi', model_api: 'responses' });
    expect(turn.body.error).toEqual({
      code: 'not_event_stream',
      message: `the model endpoint answered ${baseURL}/responses with Content-Type "application/json" instead of an event stream (text/event-stream): ${hint}`,
    });
  });
});

describe('a 2xx model answer without a Content-Type', () => {
  it.each(['responses', 'chat'])('that holds no event fails a %s turn saying no event came and to check OPENAI_BASE_URL', async (api_) => {
    answer = { type: null, body: 'plain' };
    const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi', model_api: api_ });
    expect(turn.body.error).toEqual({
      code: 'stream_interrupted',
      message: `the model endpoint ${baseURL} answered but its stream ended without a single event (an empty body, or no server-sent events): check OPENAI_BASE_URL`,
    });
  });
});

describe('an event stream', () => {
  let model: ScriptedResponsesServer;
  beforeAll(async () => {
    model = await startScriptedResponsesServer();
  });
  afterAll(async () => {
    await model?.close();
  });

  it('still runs the turn (the check passes text/event-stream); one that stops after some events says the stream ended early', async () => {
    const ok = await startTestService({ modelBaseURL: model.baseURL });
    try {
      model.push({ output: [message('streamed')] });
      const turn = await api(ok.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
      expect(turn.body).toMatchObject({ status: 'completed', output_text: 'streamed' });
      model.push({ output: [message('a b c d')], cutAfter: 3, cutMode: 'end' });
      const cut = await api(ok.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
      expect(cut.body.error).toEqual({ code: 'stream_interrupted', message: `the stream from the model endpoint ${model.baseURL} ended before the response completed` });
    } finally {
      await ok.close();
    }
  });
});
