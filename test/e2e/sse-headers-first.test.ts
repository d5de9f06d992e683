/**
 * An SSE response's status and headers (200, `text/event-stream`, `X-Turn-Id`, `Location`) reach
 * the client as soon as the stream is opened — not with its first event or first heartbeat. A
 * queued turn or a resume at the end of a waiting turn's log may have nothing to send for a
 * long time; a client with a header timeout must still learn the turn's id at once (and not
 * retry the POST, creating a duplicate). The heartbeat is left at its default (15 s) so only the
 * headers themselves can arrive within the test's wait.
 */
import http from 'node:http';
import { expect, it } from 'vitest';
import { message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from './support/service.js';

const harness = useScriptedService({ env: { MAX_CONCURRENT_TURNS: '1' } });

/** Open an SSE request; resolve with the response head (status, headers) and when it came, or reject after `ms`. */
function head(url: string, opts: { method?: string; body?: unknown; headers?: Record<string, string> }, ms: number): Promise<{ status: number; headers: http.IncomingHttpHeaders; afterMs: number; req: http.ClientRequest }> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = http.request(url, {
      method: opts.method ?? 'GET',
      headers: { accept: 'text/event-stream', ...(payload ? { 'content-type': 'application/json' } : {}), ...opts.headers },
    }, (res) => {
      clearTimeout(timer);
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers, afterMs: Date.now() - t0, req });
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no response head within ${ms} ms`));
    }, ms);
    req.on('error', () => undefined);
    req.end(payload);
  });
}

it('a streaming POST of a queued turn answers its head at once, before the turn starts', async () => {
  // The first turn holds the only slot: its model answers only after 8 s.
  harness.model.push({ output: [message('slow')], holdMs: 8_000 }, { output: [message('second')] });
  const first = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'hold the slot' });
  expect(first.status).toBe(202);
  const r = await head(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: 'queued behind it' } }, 3_000);
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toMatch(/^text\/event-stream/);
  const id = r.headers['x-turn-id'];
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  expect(r.headers.location).toBe(`/v1/turns/${id}`);
  const rec = await api(harness.svc.url, 'GET', `/v1/turns/${id}`);
  expect(rec.body.status).toBe('queued');
  r.req.destroy();
  await api(harness.svc.url, 'POST', `/v1/turns/${first.body.id}/cancel`);
}, 20_000);

it('a resume at the end of a turn that has nothing new answers its head at once', async () => {
  harness.model.push({ output: [message('slow')], holdMs: 8_000 });
  const t = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'one slow answer' });
  expect(t.status).toBe(202);
  // Wait for its first event (turn.started), then resume after it: nothing more for 8 s.
  let last = 0;
  for (let i = 0; i < 100 && last === 0; i++) {
    const rec = await api(harness.svc.url, 'GET', `/v1/turns/${t.body.id}`);
    if (rec.body.status === 'running') last = 1;
    else await new Promise((res) => setTimeout(res, 50));
  }
  expect(last).toBe(1);
  const r = await head(`${harness.svc.url}/v1/turns/${t.body.id}/events`, { headers: { 'last-event-id': '1' } }, 3_000);
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toMatch(/^text\/event-stream/);
  r.req.destroy();
  await api(harness.svc.url, 'POST', `/v1/turns/${t.body.id}/cancel`);
}, 20_000);
