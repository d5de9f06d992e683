/**
 * MODEL_IDLE_TIMEOUT_MS counts every event the provider sends, not only the ones the service
 * passes on to the turn: a tool call whose arguments stream for longer than the limit (deltas
 * 300 ms apart, MODEL_IDLE_TIMEOUT_MS 1 s) completes and runs, over both wire protocols, while a
 * stream that really goes silent mid-call still fails the turn with `model_timeout`. The real
 * service and the real openai SDK against the scripted Responses and Chat Completions servers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatCall, chatText, startScriptedChatServer, type ScriptedChatServer } from '../support/scripted-chat-server.js';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService, type TestService } from './support/service.js';

const env = { MODEL_IDLE_TIMEOUT_MS: '1000', MODEL_REQUEST_TIMEOUT_MS: '30000', MODEL_MAX_RETRIES: '0' };
const TODO_ARGS = JSON.stringify({ todos: [{ id: '1', content: 'stream these arguments slowly', status: 'pending' }] });
/** The arguments in 8 deltas: with 300 ms before each event, about 3 s in which nothing is passed on. */
const ARG_CHUNKS = Array.from({ length: 8 }, (_, k) => TODO_ARGS.slice((k * TODO_ARGS.length) / 8, ((k + 1) * TODO_ARGS.length) / 8));

function useService<M extends { baseURL: string; close(): Promise<void> }>(start: () => Promise<M>, extra: Record<string, string> = {}) {
  const h = {} as { model: M; svc: TestService };
  beforeAll(async () => {
    h.model = await start();
    h.svc = await startTestService({ modelBaseURL: h.model.baseURL, env: { ...env, ...extra } });
  });
  afterAll(async () => {
    await h.svc?.close();
    await h.model?.close();
  });
  return h as { readonly model: M; readonly svc: TestService };
}

const runTurn = (svc: TestService) => api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'plan it', tools: ['todo'] });

describe('Responses API: argument deltas keep the stream alive', () => {
  const h = useService<ScriptedResponsesServer>(() => startScriptedResponsesServer());

  it('completes a turn whose tool call arguments stream for longer than MODEL_IDLE_TIMEOUT_MS, and runs the call', async () => {
    h.model.push(
      { output: [functionCall('todo', TODO_ARGS, { callId: 'call_slow', chunks: ARG_CHUNKS })], delayMs: 300 },
      { output: [message('planned')] },
    );
    const t0 = Date.now();
    const r = await runTurn(h.svc);
    expect(Date.now() - t0).toBeGreaterThan(3000); // the arguments really took longer than the limit
    expect(r.body).toMatchObject({ status: 'completed', output_text: 'planned' });
    const input = h.model.requests.at(-1)!.body.input as { type: string; call_id?: string; output?: unknown }[];
    const result = input.find((i) => i.type === 'function_call_output' && i.call_id === 'call_slow');
    expect(JSON.stringify(result?.output)).toContain('stream these arguments slowly');
  });

  it('still fails the turn with model_timeout when the stream goes silent in the middle of the arguments', async () => {
    const before = h.model.requests.length;
    // created, in_progress, output_item.added, 3 argument deltas; then nothing, connection open.
    h.model.push({ output: [functionCall('todo', TODO_ARGS, { chunks: ARG_CHUNKS })], delayMs: 300, cutAfter: 6, cutMode: 'stall' });
    const r = await runTurn(h.svc);
    expect(r.body.status).toBe('failed');
    expect(r.body.error).toMatchObject({ code: 'model_timeout', message: `the model endpoint ${h.model.baseURL} sent nothing for 1 s (MODEL_IDLE_TIMEOUT_MS)` });
    expect(h.model.requests.length - before).toBe(1);
  });
});

describe('Chat Completions: tool-call chunks keep the stream alive', () => {
  const h = useService<ScriptedChatServer>(() => startScriptedChatServer(), { MODEL_API: 'chat' });

  it('completes a turn whose tool call arguments stream for longer than MODEL_IDLE_TIMEOUT_MS, and runs the call', async () => {
    h.model.push(
      { toolCalls: [chatCall('todo', TODO_ARGS, { id: 'call_slow', chunks: ARG_CHUNKS })], delayMs: 300 },
      chatText('planned'),
    );
    const t0 = Date.now();
    const r = await runTurn(h.svc);
    expect(Date.now() - t0).toBeGreaterThan(3000);
    expect(r.body).toMatchObject({ status: 'completed', output_text: 'planned' });
    const messages = h.model.requests.at(-1)!.body.messages as { role: string; tool_call_id?: string; content?: unknown }[];
    const result = messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call_slow');
    expect(JSON.stringify(result?.content)).toContain('stream these arguments slowly');
  });

  it('still fails the turn with model_timeout when the stream goes silent in the middle of the arguments', async () => {
    const before = h.model.requests.length;
    // the role chunk, the call's first chunk (id, name), 3 argument chunks; then nothing, connection open.
    h.model.push({ toolCalls: [chatCall('todo', TODO_ARGS, { chunks: ARG_CHUNKS })], delayMs: 300, cutAfter: 5, cutMode: 'stall' });
    const r = await runTurn(h.svc);
    expect(r.body.status).toBe('failed');
    expect(r.body.error).toMatchObject({ code: 'model_timeout', message: `the model endpoint ${h.model.baseURL} sent nothing for 1 s (MODEL_IDLE_TIMEOUT_MS)` });
    expect(h.model.requests.length - before).toBe(1);
  });
});

/**
 * SSE comment lines (OpenRouter's `: OPENROUTER PROCESSING`, sent while a model has not started
 * answering) count as activity for MODEL_IDLE_TIMEOUT_MS, and for nothing else: MODEL_REQUEST_TIMEOUT_MS
 * still ends a request that only ever sends comments.
 */
const KEEP_ALIVE = { comment: 'OPENROUTER PROCESSING', everyMs: 300, forMs: 2500 };

describe('Chat Completions: SSE comments keep a slow-to-start stream alive', () => {
  const h = useService<ScriptedChatServer>(() => startScriptedChatServer(), { MODEL_API: 'chat' });

  it('completes a turn whose model sends only keep-alive comments for longer than MODEL_IDLE_TIMEOUT_MS before answering', async () => {
    const before = h.model.requests.length;
    h.model.push(chatText('answered after a slow start', { keepAlive: KEEP_ALIVE }));
    const t0 = Date.now();
    const r = await runTurn(h.svc);
    expect(Date.now() - t0).toBeGreaterThan(2000);
    expect(r.body).toMatchObject({ status: 'completed', output_text: 'answered after a slow start' });
    expect(h.model.requests.length - before).toBe(1);
  });
});

describe('Responses API: SSE comments keep a slow-to-start stream alive', () => {
  const h = useService<ScriptedResponsesServer>(() => startScriptedResponsesServer());

  it('completes a turn whose model sends only keep-alive comments for longer than MODEL_IDLE_TIMEOUT_MS before answering', async () => {
    const before = h.model.requests.length;
    h.model.push({ output: [message('answered after a slow start')], keepAlive: KEEP_ALIVE });
    const t0 = Date.now();
    const r = await runTurn(h.svc);
    expect(Date.now() - t0).toBeGreaterThan(2000);
    expect(r.body).toMatchObject({ status: 'completed', output_text: 'answered after a slow start' });
    expect(h.model.requests.length - before).toBe(1);
  });
});

describe('SSE comments do not extend MODEL_REQUEST_TIMEOUT_MS', () => {
  const h = useService<ScriptedChatServer>(() => startScriptedChatServer(), { MODEL_API: 'chat', MODEL_REQUEST_TIMEOUT_MS: '2000' });

  it('fails with model_timeout a request that only ever sends comments', async () => {
    h.model.push(chatText('never', { keepAlive: { comment: 'OPENROUTER PROCESSING', everyMs: 300, forMs: 30_000 } }));
    const t0 = Date.now();
    const r = await runTurn(h.svc);
    expect(r.body).toMatchObject({ status: 'failed', error: { code: 'model_timeout', message: `the request to the model endpoint ${h.model.baseURL} took longer than 2 s (MODEL_REQUEST_TIMEOUT_MS)` } });
    expect(Date.now() - t0).toBeLessThan(10_000);
  });
});
