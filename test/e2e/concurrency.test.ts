/**
 * 50 concurrent streaming turns through one service with MAX_CONCURRENT_TURNS below 50: all
 * complete (excess queued, not rejected), each stream has every event in order.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService, type TestService } from './support/service.js';
import { readSse } from './support/sse-client.js';
import { todoThenAnswer } from './support/scripts.js';

let model: ScriptedResponsesServer;
let svc: TestService;

beforeAll(async () => {
  model = await startScriptedResponsesServer();
  svc = await startTestService({ modelBaseURL: model.baseURL, env: { MAX_CONCURRENT_TURNS: '8' } });
});
afterAll(async () => {
  await svc.close();
  await model.close();
});

it('runs 50 concurrent streaming turns to completion with every event in order', async () => {
  const n = 50;
  for (let i = 0; i < 2 * n; i++) model.push(todoThenAnswer);
  let maxRunning = 0;
  const probe = setInterval(() => (maxRunning = Math.max(maxRunning, svc.services.turns.stats().running)), 5);
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      readSse(`${svc.url}/v1/turns`, { method: 'POST', body: { input: `job-${i}`, agent_id: `agent-${i}`, tools: ['todo'] }, timeoutMs: 60_000 }),
    ),
  );
  clearInterval(probe);
  expect(maxRunning).toBeLessThanOrEqual(8);
  for (const [i, r] of results.entries()) {
    expect(r.status).toBe(200);
    expect(r.serverClosed).toBe(true);
    const types = r.events.map((e) => e.event);
    expect(r.events.map((e) => Number(e.id))).toEqual(r.events.map((_, k) => k + 1));
    expect(types[0]).toBe('turn.started');
    expect(types.indexOf('tool.started')).toBeLessThan(types.indexOf('tool.completed'));
    expect(types[types.length - 1]).toBe('turn.completed');
    expect(r.events[r.events.length - 1].json.output_text).toBe(`done: job-${i}`);
    const turnId = r.headers.get('x-turn-id')!;
    for (const e of r.events) expect(e.json.turn_id).toBe(turnId);
  }
  const list = await api(svc.url, 'GET', '/v1/turns?status=completed&limit=100');
  expect(list.body.data.length).toBe(n);
}, 120_000);
