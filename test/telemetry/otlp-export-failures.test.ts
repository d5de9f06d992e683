/**
 * A trace collector that cannot be reached does not lose spans without a word: the real service
 * process, pointed at a closed loopback port, logs one warning naming the OTLP URL (its password
 * masked) and the error (not one per batch), counts the lost spans in `trace_export_failed_spans_total`, and logs a
 * `recovered` line once a receiver listens on that port and a batch goes through.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort, spawnService, waitHealthy } from '../e2e/support/child.js';
import { api } from '../e2e/support/service.js';
import { parseMetrics, sampleValue } from '../support/prometheus.js';
import { message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { startOtlpReceiver } from './otlp-receiver.js';

let model: ScriptedResponsesServer;
let dataDir: string;
beforeAll(async () => {
  model = await startScriptedResponsesServer();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'turns-otlp-down-'));
});
afterAll(async () => {
  await model?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const lines = (out: string) => out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: string; msg: string; err?: { message?: string } });

it('warns once while the collector is unreachable, counts the lost spans, and says when export recovers', { timeout: 90_000 }, async () => {
  const collectorPort = await freePort(); // nothing listens there yet
  const port = await freePort();
  const child = spawnService({
    DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', LOG_FORMAT: 'json',
    OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'test-key', MODEL: 'scripted-model', MODEL_MAX_RETRIES: '0',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://otel-user:otel-pass-0123@127.0.0.1:${collectorPort}/`, OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
  });
  const url = `http://127.0.0.1:${port}`;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>> | undefined;
  try {
    await waitHealthy(url, child, 60_000);
    // The collector URL is named without its password.
    const what = `span export to http://***@127.0.0.1:${collectorPort}/v1/traces`;
    for (const n of [1, 2]) {
      model.push({ output: [message(`answer ${n}`)] });
      expect((await api(url, 'POST', '/v1/turns?wait=true', { input: `turn ${n}` })).body.status).toBe('completed');
      await expect.poll(async () => sampleValue(parseMetrics(await (await fetch(`${url}/metrics`)).text()), 'trace_export_failed_spans_total'), { timeout: 20_000 }).toBeGreaterThanOrEqual(n * 2);
    }
    const failedLines = lines(child.output()).filter((l) => l.msg === `${what} failed`);
    expect(failedLines).toHaveLength(1);
    expect(failedLines[0].level).toBe('warn');
    expect(failedLines[0].err?.message).toMatch(/ECONNREFUSED|connect/i);

    receiver = await startOtlpReceiver(collectorPort);
    model.push({ output: [message('answer 3')] });
    const done = await api(url, 'POST', '/v1/turns?wait=true', { input: 'turn 3' });
    await expect.poll(() => receiver!.spans.filter((s) => s.attributes['turn.id'] === done.body.id).length, { timeout: 20_000 }).toBe(1);
    await expect.poll(() => lines(child.output()).filter((l) => l.msg.startsWith(`${what} recovered after `)).length, { timeout: 10_000 }).toBe(1);
    expect(child.output()).not.toContain('otel-pass-0123');
  } finally {
    child.proc.kill('SIGTERM');
    await child.exited;
    await receiver?.close();
  }
});
