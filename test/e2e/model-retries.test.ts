/**
 * Which HTTP errors of the model endpoint a turn sends again (MODEL_MAX_RETRIES, the SDK's retries
 * over the service's own HTTP stack, src/model/model-fetch.ts): a 503 is retried, a 501 (Not
 * Implemented: it does not pass) is not — unless the server says `x-should-retry: true`. The real
 * service on both protocols against scripted servers on loopback, counting the requests they got.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedChatServer, chatText, type ScriptedChatServer } from '../support/scripted-chat-server.js';
import { message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService, type TestService } from './support/service.js';

let chat: ScriptedChatServer;
let responses: ScriptedResponsesServer;
let chatSvc: TestService;
let responsesSvc: TestService;

beforeAll(async () => {
  chat = await startScriptedChatServer();
  responses = await startScriptedResponsesServer();
  chatSvc = await startTestService({ modelBaseURL: chat.baseURL, env: { MODEL_API: 'chat', MODEL_MAX_RETRIES: '2' } });
  responsesSvc = await startTestService({ modelBaseURL: responses.baseURL, env: { MODEL_MAX_RETRIES: '2' } });
});
afterAll(async () => {
  await chatSvc?.close();
  await responsesSvc?.close();
  await chat?.close();
  await responses?.close();
});

type HttpError = { status: number; body?: unknown; headers?: Record<string, string> };
/** Each protocol's server and service; `script(error)` queues that HTTP error, then an answer "ok" for a retry. */
const both = () => [
  { name: 'Chat Completions', server: chat, svc: chatSvc, script: (httpError: HttpError) => chat.push({ httpError }, chatText('ok')) },
  { name: 'Responses', server: responses, svc: responsesSvc, script: (httpError: HttpError) => responses.push({ httpError }, { output: [message('ok')] }) },
] as const;

/** Run one turn; its status, error and how many model requests the scripted server got for it. */
async function turn(server: ScriptedChatServer | ScriptedResponsesServer, svc: TestService) {
  const before = server.requests.length;
  const created = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
  return { status: created.body.status as string, error: created.body.error as { code: string; message: string } | null, requests: server.requests.length - before };
}

describe('model HTTP errors sent again, or not', () => {
  it('a 501 (Not Implemented) fails the turn after one request; a 503 is retried and the turn completes', async () => {
    for (const { name, server, svc, script } of both()) {
      script({ status: 501, body: { error: { message: 'Unsupported method (POST)', type: 'server_error', code: null, param: null } } });
      const failed = await turn(server, svc);
      expect(failed, name).toMatchObject({ status: 'failed', error: { code: 'http_501' }, requests: 1 });
      expect(failed.error?.message, name).toContain('answered HTTP 501 (the address takes no POST of a model request');
      expect(server.remaining(), name).toBe(1); // the answer scripted for a retry is left

      const completed = await turn(server, svc); // takes the answer left over
      expect(completed, name).toMatchObject({ status: 'completed', requests: 1 });

      script({ status: 503 });
      expect(await turn(server, svc), name).toMatchObject({ status: 'completed', requests: 2 });
      expect(server.remaining(), name).toBe(0);
    }
  });

  it('a 505 (HTTP Version Not Supported) is not retried either', async () => {
    for (const { name, server, svc, script } of both()) {
      script({ status: 505 });
      expect(await turn(server, svc), name).toMatchObject({ status: 'failed', error: { code: 'http_505' }, requests: 1 });
      expect(await turn(server, svc), name).toMatchObject({ status: 'completed', requests: 1 }); // takes the answer left over
    }
  });

  it('a 501 whose server says x-should-retry: true is retried as it asks', async () => {
    for (const { name, server, svc, script } of both()) {
      script({ status: 501, headers: { 'x-should-retry': 'true' } });
      expect(await turn(server, svc), name).toMatchObject({ status: 'completed', requests: 2 });
      expect(server.remaining(), name).toBe(0);
    }
  });
});
