/**
 * Every model error that comes from the endpoint names it — which OPENAI_BASE_URL failed, for an
 * operator with several — as 401/403/404 answers and connection errors always did, and never with
 * its credentials: an HTTP 500/503/400 answer (JSON, HTML, no body), an error sent inside the
 * stream, a stream that broke, ended early or was not JSON, and `model_timeout`. The real service on both protocols, its
 * OPENAI_BASE_URL carrying a user and password, against scripted servers on loopback; the error
 * as the turn record, SSE `turn.failed` and the `turn finished` log line carry it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { message } from '../support/scripted-responses-server.js';
import { startScriptedChatServer, type ScriptedChatServer } from '../support/scripted-chat-server.js';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService, type TestService } from './support/service.js';
import { readSse } from './support/sse-client.js';

const PASSWORD = 'S3cretPassw0rdXYZ';
/** `baseURL` with a user and password, as an operator may configure a proxy. */
const withUserinfo = (baseURL: string) => baseURL.replace('http://', `http://proxyuser:${PASSWORD}@`);
/** How messages show that endpoint: the userinfo as `***@`. */
const shown = (baseURL: string) => baseURL.replace('http://', 'http://***@');

let chat: ScriptedChatServer;
let responses: ScriptedResponsesServer;
let chatSvc: TestService;
let responsesSvc: TestService;
const logLines: string[] = [];

beforeAll(async () => {
  chat = await startScriptedChatServer();
  responses = await startScriptedResponsesServer();
  const env = { MODEL_IDLE_TIMEOUT_MS: '500', LOG_LEVEL: 'info' };
  const logDestination = { write: (line: string) => void logLines.push(line) };
  chatSvc = await startTestService({ modelBaseURL: withUserinfo(chat.baseURL), env: { ...env, MODEL_API: 'chat' }, logDestination });
  responsesSvc = await startTestService({ modelBaseURL: withUserinfo(responses.baseURL), env, logDestination });
});
afterAll(async () => {
  await chatSvc?.close();
  await responsesSvc?.close();
  await chat?.close();
  await responses?.close();
});

/** Run a turn that fails; its error as the record and the SSE `turn.failed` say it (equal). */
async function failedTurn(svc: TestService): Promise<{ code: string; message: string }> {
  const created = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
  expect(created.body.status).toBe('failed');
  const record = await api(svc.url, 'GET', `/v1/turns/${created.body.id}`);
  const sse = await readSse(`${svc.url}/v1/turns/${created.body.id}/events`);
  expect(sse.events.at(-1)).toMatchObject({ event: 'turn.failed', json: { error: record.body.error } });
  return record.body.error;
}

const nginx = '<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx</center>\r\n';
const both = () => [
  { name: 'Chat Completions', server: chat, svc: chatSvc },
  { name: 'Responses', server: responses, svc: responsesSvc },
] as const;

describe('an HTTP error answer names the endpoint, whatever its status', () => {
  it('500 with a JSON message, 503 with an nginx page, 400 without a body — on both protocols', async () => {
    for (const { server, svc } of both()) {
      const at = shown(server.baseURL);
      server.push({ httpError: { status: 500, body: { error: { message: 'boom', type: 'server_error', code: null, param: null } } } });
      expect(await failedTurn(svc)).toEqual({ code: 'http_500', message: `the model endpoint ${at} answered HTTP 500: boom` });
      server.push({ httpError: { status: 503, body: nginx, headers: { 'content-type': 'text/html' } } });
      expect(await failedTurn(svc)).toEqual({ code: 'http_503', message: `the model endpoint ${at} answered HTTP 503: an HTML page of ${nginx.length} bytes: "503 Service Temporarily Unavailable"` });
      server.push({ httpError: { status: 400, body: '' } });
      expect(await failedTurn(svc)).toEqual({ code: 'http_400', message: `the model endpoint ${at} answered HTTP 400 without a body` });
    }
  });
});

describe('a provider message with control or bidi characters', () => {
  it('reaches the turn with them escaped, line breaks and tabs kept — on both protocols', async () => {
    for (const { server, svc } of both()) {
      server.push({ httpError: { status: 400, body: { error: { message: 'bad \u202Eevil\u0007\u001b[31m red\nsecond\tline', type: 'invalid_request_error', code: null, param: null } } } });
      const error = await failedTurn(svc);
      expect(error.message).toBe(`the model endpoint ${shown(server.baseURL)} answered HTTP 400: bad \\u202Eevil\\u0007\\u001B[31m red\nsecond\tline`);
    }
  });
});

describe('a stream that broke, ended early or was not JSON names the endpoint', () => {
  it('a connection cut mid-stream: the stream from the endpoint broke', async () => {
    chat.push({ content: 'a b c d', cutAfter: 2 });
    const chatError = await failedTurn(chatSvc);
    expect(chatError.code).toBe('stream_interrupted');
    expect(chatError.message.startsWith(`the stream from the model endpoint ${shown(chat.baseURL)} broke: `)).toBe(true);
    responses.push({ output: [message('a b c d')], cutAfter: 3 });
    const responsesError = await failedTurn(responsesSvc);
    expect(responsesError.code).toBe('stream_interrupted');
    expect(responsesError.message.startsWith(`the stream from the model endpoint ${shown(responses.baseURL)} broke: `)).toBe(true);
  });

  it('a frame that is not JSON (Chat Completions)', async () => {
    chat.push({ data: [{ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] }, '{not json'] });
    expect(await failedTurn(chatSvc)).toEqual({
      code: 'stream_interrupted',
      message: `the stream from the model endpoint ${shown(chat.baseURL)} broke: Error reading response: malformed server-sent event JSON.`,
    });
  });

  it('a stream that ends cleanly before the response completed', async () => {
    chat.push({ content: 'a b c d', finishReason: null, cutAfter: 2, cutMode: 'end' });
    expect(await failedTurn(chatSvc)).toEqual({
      code: 'stream_interrupted',
      message: `the stream from the model endpoint ${shown(chat.baseURL)} ended without a finish_reason (after 2 chunks): the answer may be cut off, so it was not used`,
    });
    responses.push({ output: [message('a b c d')], cutAfter: 4, cutMode: 'end' });
    expect(await failedTurn(responsesSvc)).toEqual({ code: 'stream_interrupted', message: `the stream from the model endpoint ${shown(responses.baseURL)} ended before the response completed` });
  });
});

describe('an error the endpoint sent inside its stream names it', () => {
  it('a Chat Completions error frame, a Responses error event and a failed response', async () => {
    chat.push({ data: [{ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] }, { error: { message: 'model crashed', type: 'server_error', code: 500 } }] });
    expect(await failedTurn(chatSvc)).toEqual({ code: 'http_500', message: `the model endpoint ${shown(chat.baseURL)} sent an error in its stream: model crashed` });
    responses.push({ streamError: { code: 'server_error', message: 'overloaded' } });
    expect(await failedTurn(responsesSvc)).toEqual({ code: 'server_error', message: `the model endpoint ${shown(responses.baseURL)} sent an error in its stream: overloaded` });
    const response = { id: 'resp_1', object: 'response', status: 'failed', output: [], error: { code: 'server_error', message: 'gave up' } };
    responses.push({ events: [{ type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress', error: null } }, { type: 'response.failed', sequence_number: 1, response }] });
    expect(await failedTurn(responsesSvc)).toEqual({ code: 'server_error', message: `the model endpoint ${shown(responses.baseURL)} sent an error in its stream: gave up` });
  });
});

describe('model_timeout names the endpoint', () => {
  it('a stream that stalls after its first events, on both protocols', async () => {
    chat.push({ content: 'a b c d', cutAfter: 2, cutMode: 'stall' });
    expect(await failedTurn(chatSvc)).toEqual({ code: 'model_timeout', message: `the model endpoint ${shown(chat.baseURL)} sent nothing for 0.5 s (MODEL_IDLE_TIMEOUT_MS)` });
    responses.push({ output: [message('a b c d')], cutAfter: 4, cutMode: 'stall' });
    expect(await failedTurn(responsesSvc)).toEqual({ code: 'model_timeout', message: `the model endpoint ${shown(responses.baseURL)} sent nothing for 0.5 s (MODEL_IDLE_TIMEOUT_MS)` });
  });
});

describe('the log', () => {
  it('names the endpoint in `turn finished` and never shows its password', async () => {
    const finished = logLines.filter((l) => l.includes('"msg":"turn finished"'));
    expect(finished.length).toBeGreaterThanOrEqual(15);
    expect(finished.some((l) => l.includes(`the model endpoint ${shown(chat.baseURL)} answered HTTP 503`))).toBe(true);
    expect(logLines.join('')).not.toContain(PASSWORD);
  });
});

describe('a key in the endpoint\'s query string', () => {
  it('is redacted where the provider echoes its own URL back, and shows as [redacted] in the endpoint', async () => {
    const http = await import('node:http');
    const KEY = 'zzz-query-secret-4711';
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route for ${req.method} ${req.url}`, type: 'invalid_request_error' } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const svc = await startTestService({ modelBaseURL: `http://127.0.0.1:${port}/v1?api-version=2025-01-01&api-key=${KEY}` });
    try {
      const error = await failedTurn(svc);
      expect(error.message).not.toContain(KEY);
      expect(error.message).toContain(`the model endpoint http://127.0.0.1:${port}/v1?api-version=2025-01-01&api-key=[redacted] answered HTTP 404`);
      expect(error.message).toContain('api-key=[redacted:OPENAI_BASE_URL]');
    } finally {
      await svc.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
