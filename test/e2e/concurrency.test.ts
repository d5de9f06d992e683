/**
 * 50 concurrent streaming turns through one service with MAX_CONCURRENT_TURNS below 50: all
 * complete (excess queued, not rejected), each stream has every event in order.
 */
import { expect, it } from 'vitest';
import { api, useScriptedService } from './support/service.js';
import { readSse } from './support/sse-client.js';
import { todoThenAnswer } from './support/scripts.js';

const harness = useScriptedService({ env: { MAX_CONCURRENT_TURNS: '8' } });

it('runs 50 concurrent streaming turns to completion with every event in order', async () => {
  const n = 50;
  for (let i = 0; i < 2 * n; i++) harness.model.push(todoThenAnswer);
  let maxRunning = 0;
  const probe = setInterval(() => (maxRunning = Math.max(maxRunning, harness.svc.services.turns.runningCount)), 5);
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: `job-${i}`, agent_id: `agent-${i}`, tools: ['todo'] }, timeoutMs: 60_000 }),
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
  const list = await api(harness.svc.url, 'GET', '/v1/turns?status=completed&limit=100');
  expect(list.body.data.length).toBe(n);
}, 120_000);
