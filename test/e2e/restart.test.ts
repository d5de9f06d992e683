/**
 * Crash recovery: kill the real service process (SIGKILL) while a turn is running, start it again
 * on the same DATA_DIR, and the turn resumes from its checkpoint, completes, and its stream ends
 * (more crash points: test/e2e/crash/).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api } from './support/service.js';
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
