/**
 * POST /v1/tools/preview answers `definitions` in the form the turn's wire protocol sends them:
 * what a scripted Chat Completions server and a scripted Responses server receive as `tools` in a
 * real turn with the same tool families equals the preview, for the server's MODEL_API and for
 * the other protocol asked for with `model_api`.
 */
import { describe, expect, it } from 'vitest';
import { chatText } from '../support/scripted-chat-server.js';
import { message } from '../support/scripted-responses-server.js';
import { useBothAdapters } from './support/both-adapters.js';
import { api } from './support/service.js';
import { validateResponse } from './support/spec.js';

const s = useBothAdapters();
const FAMILIES = ['todo', 'clarify', 'web', 'schedule', 'workflow', 'jobs'];

async function preview(url: string, extra: Record<string, unknown> = {}) {
  const r = await api(url, 'POST', '/v1/tools/preview', { tools: FAMILIES, brain: true, ...extra });
  expect(r.status).toBe(200);
  expect(validateResponse('/v1/tools/preview', 'post', 200, r.body)).toEqual([]);
  return r.body;
}

/** The `tools` the chat server received in a turn of `svcUrl` with the preview's families (`model_api` added when given). */
async function chatToolsSent(svcUrl: string, modelApi?: string): Promise<unknown> {
  s.chat.push(chatText('done'));
  const before = s.chat.requests.length;
  const r = await api(svcUrl, 'POST', '/v1/turns?wait=true', { input: 'hi', tools: FAMILIES, brain: true, ...(modelApi ? { model_api: modelApi } : {}) });
  expect(r.body.status).toBe('completed');
  return s.chat.requests[before].body.tools;
}

/** The `tools` the Responses server received in a turn of `svcUrl` with the preview's families. */
async function responsesToolsSent(svcUrl: string, modelApi?: string): Promise<unknown> {
  s.responses.push({ output: [message('done')] });
  const before = s.responses.requests.length;
  const r = await api(svcUrl, 'POST', '/v1/turns?wait=true', { input: 'hi', tools: FAMILIES, brain: true, ...(modelApi ? { model_api: modelApi } : {}) });
  expect(r.body.status).toBe('completed');
  return s.responses.requests[before].body.tools;
}

describe('POST /v1/tools/preview definitions', () => {
  it('with MODEL_API=chat are the Chat Completions tools a turn sends ({type: "function", function: {…}})', async () => {
    const p = await preview(s.chatSvc.url);
    expect(p.model_api).toBe('chat');
    expect(p.definitions.length).toBeGreaterThan(5);
    for (const d of p.definitions) expect(Object.keys(d).sort()).toEqual(['function', 'type']);
    expect(p.definitions).toEqual(await chatToolsSent(s.chatSvc.url));
    // The names in `tools` are the runtime's; the definitions carry the same ones (none namespaced here).
    expect(p.definitions.map((d: { function: { name: string } }) => d.function.name)).toEqual(p.tools);
  });

  it('with MODEL_API=responses are the Responses tools a turn sends', async () => {
    const p = await preview(s.responsesSvc.url);
    expect(p.model_api).toBe('responses');
    expect(p.definitions).toEqual(await responsesToolsSent(s.responsesSvc.url));
  });

  it('takes model_api, as POST /v1/turns does, for the other protocol\'s form', async () => {
    const asResponses = await preview(s.chatSvc.url, { model_api: 'responses' });
    expect(asResponses.model_api).toBe('responses');
    expect(asResponses.definitions).toEqual(await responsesToolsSent(s.responsesSvc.url));
    const asChat = await preview(s.responsesSvc.url, { model_api: 'chat' });
    expect(asChat.model_api).toBe('chat');
    expect(asChat.definitions).toEqual(await chatToolsSent(s.chatSvc.url));
    expect((await preview(s.chatSvc.url, { model_api: null })).model_api).toBe('chat');
    const bad = await api(s.chatSvc.url, 'POST', '/v1/tools/preview', { model_api: 'completions' });
    expect([bad.status, bad.body.error.code, bad.body.error.details[0].path]).toEqual([400, 'invalid_request', 'model_api']);
  });
});
