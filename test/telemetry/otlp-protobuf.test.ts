/**
 * OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf (the OpenTelemetry spec's default transport, which
 * many deployments set everywhere): the real service process sends its spans to the OTLP/HTTP
 * receiver as `application/x-protobuf` bodies holding the turn's span (its `turn.id` and the
 * service name are plain UTF-8 strings inside the protobuf message), instead of refusing to start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort, spawnService, waitHealthy } from '../e2e/support/child.js';
import { api } from '../e2e/support/service.js';
import { message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { startOtlpReceiver } from './otlp-receiver.js';

let model: ScriptedResponsesServer;
let dataDir: string;
beforeAll(async () => {
  model = await startScriptedResponsesServer();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'turns-otlp-proto-'));
});
afterAll(async () => {
  await model?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('sends protobuf bodies to the OTLP/HTTP receiver, holding the turn span', { timeout: 90_000 }, async () => {
  const receiver = await startOtlpReceiver();
  const port = await freePort();
  const child = spawnService({
    DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn',
    OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'test-key', MODEL: 'scripted-model', MODEL_MAX_RETRIES: '0',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_BSP_SCHEDULE_DELAY: '50',
    OTEL_SERVICE_NAME: 'turns-protobuf-check',
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(url, child, 60_000);
    model.push({ output: [message('answer')] });
    const done = await api(url, 'POST', '/v1/turns?wait=true', { input: 'hello' });
    expect(done.body.status).toBe('completed');
    const holds = (b: Buffer, s: string) => b.includes(Buffer.from(s, 'utf8'));
    await expect.poll(() => receiver.protobufBodies.some((b) => holds(b, done.body.id as string) && holds(b, 'turns-protobuf-check')), { timeout: 20_000 }).toBe(true);
    expect(receiver.spans).toEqual([]); // nothing came as JSON
    expect(new Set(receiver.contentTypes)).toEqual(new Set(['application/x-protobuf']));
  } finally {
    child.proc.kill('SIGTERM');
    await child.exited;
    await receiver.close();
  }
});
