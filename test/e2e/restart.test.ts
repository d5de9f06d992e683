/**
 * Crash recovery: kill the real service process (SIGKILL) while a turn is running, start it again
 * on the same DATA_DIR, and the turn resumes from its checkpoint, completes, and its stream ends
 * (more crash points: test/e2e/crash/). A graceful stop (the service closed, started again on the
 * same DATA_DIR) reports the usage of the resumed turn: unknown (null) when it cut a model request,
 * exact when no request was in flight.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { slowSearchServer } from './crash/harness.js';
import { api, startTestService } from './support/service.js';
import { readSse } from './support/sse-client.js';
import { freePort, spawnService, waitHealthy } from './support/child.js';

let model: ScriptedResponsesServer;
let dataDir: string;

beforeAll(async () => {
  model = await startScriptedResponsesServer();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'turns-restart-'));
});
afterAll(async () => {
  await model.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('resumes a turn interrupted by a crash after restart; it completes and its stream ends', async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { DATA_DIR: dataDir, PORT: String(port), OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'k', MODEL: 'm', LOG_LEVEL: 'warn', MODEL_MAX_RETRIES: '0' };
  // The model streams slowly so the turn is surely mid-flight when the process dies.
  model.push({ output: [message('a b c d e f g h i j', { chunks: 'a b c d e f g h i j'.split(' ') })], delayMs: 500 });

  const first = spawnService(env);
  await waitHealthy(url, first);
  // The loopback-only warning, logged once the service listens (it may follow the first health answer).
  await expect.poll(() => first.output(), { timeout: 5000 }).toMatch(/AUTH_TOKENS is not set/);
  const created = await api(url, 'POST', '/v1/turns', { input: 'long job' });
  expect(created.status).toBe(202);
  const id = created.body.id as string;
  const seen = await readSse(`${url}/v1/turns/${id}/events`, { stopWhen: (e) => e.event === 'message.delta' });
  expect(seen.events.map((e) => e.event)).toContain('message.delta');
  first.proc.kill('SIGKILL');
  await first.exited;

  model.push({ output: [message('finished after the restart')] });
  const second = spawnService(env);
  try {
    await waitHealthy(url, second);
    const all = await readSse(`${url}/v1/turns/${id}/events`, { timeoutMs: 20_000 });
    expect(all.serverClosed).toBe(true);
    const last = all.events[all.events.length - 1];
    expect(last.event).toBe('turn.completed');
    expect(last.json.output_text).toBe('finished after the restart');
    expect(all.events.map((e) => e.event)).toContain('turn.resumed');
    const turn = await api(url, 'GET', `/v1/turns/${id}`);
    expect(turn.body).toMatchObject({ status: 'completed', error: null });
    expect(all.events.map((e) => Number(e.id))).toEqual(all.events.map((_, i) => i + 1));
  } finally {
    second.proc.kill('SIGTERM');
    await second.exited;
  }
}, 60_000);

describe('usage of a turn resumed after a graceful stop', () => {
  const finished = async (url: string, id: string) => {
    const all = await readSse(`${url}/v1/turns/${id}/events`, { timeoutMs: 20_000 });
    const turn = await api(url, 'GET', `/v1/turns/${id}`);
    return { last: all.events.at(-1)!, turn: turn.body };
  };

  it('is null when the stop cut a streaming model answer: its tokens were spent and never reported', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'turns-stop-usage-'));
    const first = await startTestService({ modelBaseURL: model.baseURL, dataDir: dir });
    model.push({ output: [message('a b c d e f g h i j', { chunks: 'a b c d e f g h i j'.split(' ') })], delayMs: 500 });
    const id = (await api(first.url, 'POST', '/v1/turns', { input: 'long answer' })).body.id as string;
    await readSse(`${first.url}/v1/turns/${id}/events`, { stopWhen: (e) => e.event === 'message.delta' });
    await first.close({ keepData: true });

    model.push({ output: [message('answered after the restart')], usage: { input_tokens: 5, output_tokens: 5 } });
    const second = await startTestService({ modelBaseURL: model.baseURL, dataDir: dir });
    try {
      const { last, turn } = await finished(second.url, id);
      expect(last).toMatchObject({ event: 'turn.completed', json: { output_text: 'answered after the restart', usage: null } });
      expect(turn).toMatchObject({ status: 'completed', usage: null });
    } finally {
      await second.close();
    }
  }, 60_000);

  it('stays exact when no model request was in flight (the stop cut a read-only tool call)', async () => {
    const search = await slowSearchServer(4000);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'turns-stop-usage-'));
    const env = { WEB_SEARCH_PROVIDER: 'searxng', WEB_SEARCH_URL: search.url };
    const first = await startTestService({ modelBaseURL: model.baseURL, dataDir: dir, env });
    model.push({ output: [functionCall('web_search', { query: 'maps' }, { callId: 'call_search' })], usage: { input_tokens: 7, output_tokens: 3 } });
    const id = (await api(first.url, 'POST', '/v1/turns', { input: 'search maps', tools: ['web'] })).body.id as string;
    await readSse(`${first.url}/v1/turns/${id}/events`, { stopWhen: (e) => e.event === 'tool.started' });
    await expect.poll(() => search.hits(), { timeout: 10_000 }).toBe(1);
    await first.close({ keepData: true });

    model.push({ output: [message('found it')], usage: { input_tokens: 10, output_tokens: 5 } });
    const requests = model.requests.length;
    const second = await startTestService({ modelBaseURL: model.baseURL, dataDir: dir, env });
    try {
      const { last, turn } = await finished(second.url, id);
      expect(model.requests.length).toBe(requests + 1); // the checkpointed round was not requested again
      const usage = { input_tokens: 17, output_tokens: 8 };
      expect(last).toMatchObject({ event: 'turn.completed', json: { output_text: 'found it', usage } });
      expect(turn).toMatchObject({ status: 'completed', usage });
    } finally {
      await second.close();
      await search.close();
    }
  }, 60_000);
});
