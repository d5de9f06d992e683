/**
 * End to end: the real service process (src/main.ts) with OTEL_EXPORTER_OTLP_ENDPOINT exports a
 * turn's trace over OTLP/HTTP to a receiver on loopback; after a SIGKILL and a restart, a turn that
 * was still queued runs in the new process and its spans continue the trace it was created in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, spawnService, waitHealthy, type Child } from '../e2e/support/child.js';
import { api } from '../e2e/support/service.js';
import { todoThenAnswer } from '../e2e/support/scripts.js';
import { message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { startOtlpReceiver } from './otlp-receiver.js';

let model: ScriptedResponsesServer;
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let dataDir: string;
beforeAll(async () => {
  model = await startScriptedResponsesServer();
  otlp = await startOtlpReceiver();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'turns-otlp-'));
});
afterAll(async () => {
  await otlp?.close();
  await model?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(port: number): Promise<{ child: Child; url: string }> {
  const child = spawnService({
    DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn',
    OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'test-key', MODEL: 'scripted-model', MODEL_MAX_RETRIES: '0',
    MAX_CONCURRENT_TURNS: '1',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_SERVICE_NAME: 'turns-e2e',
  });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, child, 60_000);
  return { child, url };
}

const tp = (trace: string, span: string) => `00-${trace}-${span}-01`;

describe('OTLP/HTTP export from the real service', () => {
  it('exports the turn tree under the caller traceparent; a queued turn resumed after SIGKILL continues its trace', async () => {
    const port = await freePort();
    let svc = await start(port);
    try {
      const T1 = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1';
      model.push(todoThenAnswer, todoThenAnswer);
      const done = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'plan', tools: ['todo'] }, { traceparent: tp(T1, '1111111111111111') });
      expect(done.body.status).toBe('completed');
      await expect.poll(() => otlp.spans.filter((s) => s.traceId === T1 && s.name === 'invoke_agent').length, { timeout: 15_000 }).toBe(1);
      await expect.poll(() => otlp.spans.filter((s) => s.traceId === T1).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(5);
      expect(otlp.contentTypes[0]).toMatch(/application\/json/);
      const t1 = otlp.spans.filter((s) => s.traceId === T1);
      const agent = t1.find((s) => s.name === 'invoke_agent')!;
      expect(agent.parentSpanId).toBe('1111111111111111');
      expect(agent.resource['service.name']).toBe('turns-e2e');
      expect(agent.attributes).toMatchObject({ 'turn.id': done.body.id, 'turn.status': 'completed', 'gen_ai.operation.name': 'invoke_agent' });
      const children = t1.filter((s) => s.parentSpanId === agent.spanId).map((s) => s.name).sort();
      expect(children).toEqual(['chat scripted-model', 'chat scripted-model', 'execute_tool todo']);
      const http = t1.find((s) => s.name === 'POST /v1/turns')!;
      expect(http.parentSpanId).toBe('1111111111111111');
      expect(http.kind).toBe(2); // SERVER

      // One turn holds the only run slot; the next waits queued. Then the process is killed.
      const T2 = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2';
      model.push({ output: [message('never sent')], holdMs: 120_000 });
      const running = await api(svc.url, 'POST', '/v1/turns', { input: 'hold' });
      await expect.poll(async () => (await api(svc.url, 'GET', `/v1/turns/${running.body.id}`)).body.status).toBe('running');
      const queued = await api(svc.url, 'POST', '/v1/turns', { input: 'after restart' }, { traceparent: tp(T2, '2222222222222222') });
      expect((await api(svc.url, 'GET', `/v1/turns/${queued.body.id}`)).body).toMatchObject({ status: 'queued', trace_id: T2 });
      svc.child.proc.kill('SIGKILL');
      await svc.child.exited;

      // The killed running turn resumes first (oldest), then the queued one runs: one answer each.
      model.push({ output: [message('resumed answer')] }, { output: [message('resumed answer')] });
      svc = await start(port);
      await expect.poll(async () => (await api(svc.url, 'GET', `/v1/turns/${queued.body.id}`)).body.status, { timeout: 20_000 }).toBe('completed');
      await expect.poll(() => otlp.spans.filter((s) => s.traceId === T2 && s.name === 'invoke_agent').length, { timeout: 15_000 }).toBe(1);
      const resumed = otlp.spans.find((s) => s.traceId === T2 && s.name === 'invoke_agent')!;
      expect(resumed.parentSpanId).toBe('2222222222222222');
      expect(resumed.attributes).toMatchObject({ 'turn.id': queued.body.id, 'turn.status': 'completed' });
      await expect.poll(() => otlp.spans.some((s) => s.traceId === T2 && s.name === 'chat scripted-model' && s.parentSpanId === resumed.spanId), { timeout: 15_000 }).toBe(true);
    } finally {
      svc.child.proc.kill('SIGTERM');
      await svc.child.exited;
    }
  }, 180_000);
});
