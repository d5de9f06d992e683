/**
 * Tokens in request URLs never leave the service in a trace: the real service process exports its
 * HTTP server spans over OTLP/HTTP to a receiver on loopback, and a stream token
 * (`?stream_token=`) or an API token put in the URL by mistake (`?access_token=`) appears in no
 * span attribute — the URL attributes carry `[redacted]` instead, as the logs do.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signStreamToken } from '../../src/http/stream-token.js';
import { freePort, spawnService, waitHealthy, type Child } from '../e2e/support/child.js';
import { startOtlpReceiver } from './otlp-receiver.js';

const API_TOKEN = 'tok-' + 'a1b2c3d4'.repeat(5);
const SECRET = 's'.repeat(32);

let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let dataDir: string;
let child: Child | undefined;
let url: string;
beforeAll(async () => {
  otlp = await startOtlpReceiver();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'turns-otlp-tokens-'));
  const port = await freePort();
  child = spawnService({
    DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn',
    AUTH_TOKENS: API_TOKEN, STREAM_TOKEN_SECRET: SECRET,
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50',
  });
  url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, child, 60_000);
});
afterAll(async () => {
  child?.proc.kill('SIGTERM');
  await child?.exited;
  await otlp?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('HTTP spans mask tokens in URLs', () => {
  it('exports neither a stream token nor an API token from the query string', async () => {
    const id = randomUUID();
    const streamToken = signStreamToken(SECRET, id, Math.floor(Date.now() / 1000) + 600);
    const events = await fetch(`${url}/v1/turns/${id}/events?after=0&stream_token=${encodeURIComponent(streamToken)}`);
    await events.body?.cancel();
    const list = await fetch(`${url}/v1/turns?limit=5&access_token=${API_TOKEN}`);
    expect(list.status).toBe(401);
    await list.body?.cancel();

    await expect.poll(() => otlp.spans.filter((s) => s.name === 'GET /v1/turns/:id/events' || s.name === 'GET /v1/turns').length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    const exported = JSON.stringify(otlp.spans);
    expect(exported).not.toContain(streamToken);
    expect(exported).not.toContain(encodeURIComponent(streamToken));
    expect(exported).not.toContain(API_TOKEN);

    const eventsSpan = otlp.spans.find((s) => s.name === 'GET /v1/turns/:id/events')!;
    expect(eventsSpan.attributes['url.path']).toBe(`/v1/turns/${id}/events`);
    expect(eventsSpan.attributes['url.query']).toBe('after=0&stream_token=[redacted]');
    const listSpan = otlp.spans.find((s) => s.name === 'GET /v1/turns')!;
    expect(listSpan.attributes['url.path']).toBe('/v1/turns');
    expect(listSpan.attributes['url.query']).toBe('limit=5&access_token=[redacted]');
  });
});
