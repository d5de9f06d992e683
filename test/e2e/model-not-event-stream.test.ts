/**
 * A model endpoint that answers 2xx with something other than an event stream — an HTML page or a
 * JSON document, as a wrong OPENAI_BASE_URL gives — fails the turn with `not_event_stream`, naming
 * the Content-Type received and OPENAI_BASE_URL, on both wire protocols; not `stream_interrupted`.
 * Through the real service and a real HTTP server on loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { message } from '../support/scripted-responses-server.js';
import { api, startTestService, type TestService } from './support/service.js';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';

/** What the wrong server answers to every request: status, Content-Type (none when null) and body. */
let answer: { type: string | null; body: string } = { type: 'text/html; charset=utf-8', body: '<html><body>Welcome to nginx!</body></html>' };
const seen: string[] = [];
let server: Server;
let baseURL: string;
let svc: TestService;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, answer.type === null ? {} : { 'content-type': answer.type });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  svc = await startTestService({ modelBaseURL: baseURL });
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
