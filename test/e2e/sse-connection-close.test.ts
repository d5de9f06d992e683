/**
 * An SSE response ends with its terminal event, and a client that sent `Connection: close` gets
 * the connection closed right after it (not held for the keep-alive timeout). Raw sockets, so the
 * test sees exactly when the server closes.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from './support/service.js';

const harness = useScriptedService();

/** Send `request` and resolve with everything received and the ms until the server closed. */
function rawUntilClose(request: string, maxMs: number): Promise<{ text: string; closedAfterMs: number | null }> {
  const url = new URL(harness.svc.url);
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    let text = '';
    const sock = net.connect(Number(url.port), '127.0.0.1', () => sock.write(request));
    const timer = setTimeout(() => {
      sock.destroy();
      resolve({ text, closedAfterMs: null });
    }, maxMs);
    sock.on('data', (c) => (text += c.toString('utf8')));
    sock.on('error', reject);
    sock.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedAfterMs: Date.now() - t0 });
    });
  });
}

describe('SSE connection after the terminal event', () => {
  it('closes the connection at once when the client sent Connection: close (replay of a finished turn)', async () => {
    harness.model.push({ output: [message('done here')] });
    const turn = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
    expect(turn.body.status).toBe('completed');
    const r = await rawUntilClose(`GET /v1/turns/${turn.body.id}/events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n`, 5000);
    expect(r.text).toContain('event: turn.completed');
    expect(r.closedAfterMs).not.toBeNull();
    expect(r.closedAfterMs!).toBeLessThan(2000);
  });

  it('closes the connection after the live terminal event of a streamed POST with Connection: close', async () => {
    harness.model.push({ output: [message('streamed')], delayMs: 20 });
    const body = JSON.stringify({ input: 'stream it' });
    const r = await rawUntilClose(`POST /v1/turns HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`, 10_000);
    expect(r.text).toContain('event: turn.completed');
    expect(r.closedAfterMs).not.toBeNull();
  });
});
