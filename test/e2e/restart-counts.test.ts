/**
 * The turn counts a restarted service reports: turns left waiting (for an approval) and queued by
 * the previous run on the same DATA_DIR count in /readyz `turns` and the /metrics gauges
 * `turns_waiting` / `turns_queued` from the first request on, not from the first new turn, and
 * the counts are read at each request (a turn claimed since is no longer counted as queued).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService, type TestService } from './support/service.js';

let model: ScriptedResponsesServer;
let dataDir: string;
const started: TestService[] = [];

beforeAll(async () => {
  model = await startScriptedResponsesServer();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'turns-restart-counts-'));
});
afterAll(async () => {
  for (const s of started) await s.close({ keepData: true }).catch(() => undefined);
  await model.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function statusOf(svc: TestService, id: string, want: string): Promise<void> {
  await expect.poll(async () => (await api(svc.url, 'GET', `/v1/turns/${id}`)).body.status, { timeout: 15_000 }).toBe(want);
}

it('after a restart on the same DATA_DIR, /readyz and /metrics count the turns left waiting and queued', { timeout: 60_000 }, async () => {
  const env = { MAX_CONCURRENT_TURNS: '1' };
  const first = await startTestService({ modelBaseURL: model.baseURL, dataDir, env });
  started.push(first);
  model.push({ output: [functionCall('write_file', { path: 'a.txt', content: 'a\n' }, { callId: 'call_a' })] });
  const waiting = await api(first.url, 'POST', '/v1/turns', { input: 'write a', agent_id: 'counts', tools: ['computer'], approvals: { write_file: 'always' } });
  await statusOf(first, waiting.body.id, 'waiting');
  // The only run slot stays taken by a model answer that never ends, so the next turn queues.
  model.push({ output: [message('never finished')], cutAfter: 1, cutMode: 'stall' });
  const running = await api(first.url, 'POST', '/v1/turns', { input: 'hold the slot', agent_id: 'counts-2' });
  await statusOf(first, running.body.id, 'running');
  const queued = await api(first.url, 'POST', '/v1/turns', { input: 'wait for a slot', agent_id: 'counts-3' });
  expect(queued.body.status).toBe('queued');
  await first.close({ keepData: true });
  started.pop();

  // Restarted with its one run slot taken again by a never-ending answer: one turn stays queued.
  model.push({ output: [message('never finished')], cutAfter: 1, cutMode: 'stall' });
  const second = await startTestService({ modelBaseURL: model.baseURL, dataDir, env });
  started.push(second);
  const ready = await api(second.url, 'GET', '/readyz');
  expect(ready.body.turns.waiting).toBe(1);
  expect(ready.body.turns.queued).toBeGreaterThanOrEqual(1);
  const metrics = await fetch(`${second.url}/metrics`).then((r) => r.text());
  expect(metrics).toMatch(/^turns_waiting 1$/m);
  expect(Number(/^turns_queued (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);

  // Once the one slot is taken again, the counts are read at the request, not left from the start:
  // one turn running, the other still queued.
  await expect.poll(async () => (await api(second.url, 'GET', '/v1/turns?status=running')).body.data?.length, { timeout: 15_000 }).toBe(1);
  const queuedNow = (await api(second.url, 'GET', '/v1/turns?status=queued')).body.data.length;
  expect(queuedNow).toBe(1);
  expect((await api(second.url, 'GET', '/readyz')).body.turns).toMatchObject({ queued: queuedNow, waiting: 1 });
  expect(await fetch(`${second.url}/metrics`).then((r) => r.text())).toMatch(new RegExp(`^turns_queued ${queuedNow}$`, 'm'));
});

it('counts are read at each request: an approved turn running again is no longer counted as waiting', { timeout: 60_000 }, async () => {
  const svc = await startTestService({ modelBaseURL: model.baseURL, dataDir: mkdtempSync(path.join(os.tmpdir(), 'turns-counts-')) });
  started.push(svc);
  model.push(
    { output: [functionCall('write_file', { path: 'b.txt', content: 'b\n' }, { callId: 'call_b' })] },
    // After the approval the next model answer never ends, so the turn stays running.
    { output: [message('never finished')], cutAfter: 1, cutMode: 'stall' },
  );
  const turn = await api(svc.url, 'POST', '/v1/turns', { input: 'write b', agent_id: 'counts-b', tools: ['computer'], approvals: { write_file: 'always' } });
  await statusOf(svc, turn.body.id, 'waiting');
  expect((await api(svc.url, 'GET', '/readyz')).body.turns).toMatchObject({ waiting: 1, running: 0 });

  const decided = await api(svc.url, 'POST', `/v1/turns/${turn.body.id}/approvals`, { call_id: 'call_b', decision: 'approve' });
  expect(decided.status).toBe(200);
  await statusOf(svc, turn.body.id, 'running');
  expect((await api(svc.url, 'GET', '/readyz')).body.turns).toMatchObject({ waiting: 0, running: 1, queued: 0 });
  expect(await fetch(`${svc.url}/metrics`).then((r) => r.text())).toMatch(/^turns_waiting 0$/m);
});
