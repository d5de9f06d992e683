/**
 * Slow or stalled senders (slowloris): a request whose headers or body do not arrive within
 * REQUEST_TIMEOUT_MS gets 408 `request_timeout` in the error envelope and its connection is
 * closed; a stream the service sends for longer (SSE) is not cut by it. Raw sockets, so the
 * request arrives exactly as partial as written.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './support/service.js';

const TIMEOUT_MS = 800;
let svc: TestService;
let port: number;
beforeAll(async () => {
  svc = await startTestService({ env: { REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) } });
  port = Number(new URL(svc.url).port);
});
afterAll(async () => {
  await svc.close();
});

/** Write `text` and never finish; resolve with what came back and when the server closed (ms), or the give-up time. */
function stall(text: string, giveUpMs = 5000): Promise<{ out: string; closedAfterMs: number; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    let out = '';
    let done = false;
    const s = net.connect(port, '127.0.0.1', () => s.write(text));
    const finish = (closedByServer: boolean) => {
      if (done) return;
      done = true;
      resolve({ out, closedAfterMs: Date.now() - t0, closedByServer });
    };
    s.on('data', (d) => (out += d));
    s.on('close', () => finish(true));
    s.on('error', () => finish(true));
    setTimeout(() => {
      finish(false);
      s.destroy();
    }, giveUpMs);
  });
}

describe('REQUEST_TIMEOUT_MS', () => {
  it('answers a body that stops arriving with 408 request_timeout and closes the connection', async () => {
    const r = await stall('POST /v1/turns HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"input":');
    expect(r.closedByServer).toBe(true);
    expect(r.closedAfterMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    const [head, body] = r.out.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'request_timeout' } });
  });

  it('answers headers that stop arriving the same way', async () => {
    const r = await stall('GET /v1/turns HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    expect(r.closedByServer).toBe(true);
    expect(r.out).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(r.out.split('\r\n\r\n')[1])).toEqual({
      error: {
        code: 'request_timeout',
        message: `the request headers did not arrive within ${TIMEOUT_MS} ms (REQUEST_TIMEOUT_MS): send the whole request at once, or raise REQUEST_TIMEOUT_MS for slow links`,
      },
    });
  });

  it('leaves a complete request alone: the keep-alive connection it came on is not cut at the timeout', async () => {
    const r = await stall('GET /v1/turns HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', TIMEOUT_MS * 3);
    expect(r.out).toMatch(/^HTTP\/1\.1 200 /);
    expect(r.closedByServer).toBe(false);
  });
});
