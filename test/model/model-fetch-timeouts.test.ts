/**
 * No time limit of the HTTP stack sits under the service's own (MODEL_IDLE_TIMEOUT_MS up to 1 h,
 * MODEL_REQUEST_TIMEOUT_MS up to a day, src/model/stream-timeouts.ts): a model endpoint silent
 * before its response headers, or in the middle of its body, longer than undici's default
 * `headersTimeout` / `bodyTimeout` (300 s) is not cut by the model clients' fetch. Real loopback
 * servers; undici's own clock (its `tick`, the hook its tests use) is moved past a day instead of
 * waiting, and a request on a default undici Agent shows that the move makes those limits fire.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
// undici's low-resolution clock, on which headersTimeout and bodyTimeout run.
// @ts-expect-error an internal module of undici without types
import undiciTimers from 'undici/lib/util/timers.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { modelFetch } from '../../src/model/model-fetch.js';
import { modelClientsFromConfig } from '../../src/model/model-clients.js';

const ONE_DAY_MS = 86_400_000;
let server: http.Server;
let url = '';
let seen = 0;

beforeAll(async () => {
  server = http.createServer({ requestTimeout: 0, headersTimeout: 0 }, (req, res) => {
    seen++;
    if (req.url === '/silent-body') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n'); // then nothing more
    }
    // /silent-headers: never answers
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** Wait until the server has seen `n` requests, then past one real tick of undici's clock (its timers are running). */
async function started(n: number): Promise<void> {
  await expect.poll(() => seen, { timeout: 5000 }).toBe(n);
  await new Promise((r) => setTimeout(r, 700));
}

/** 'pending' when `p` has not settled within 200 ms (real time). */
function settledOrPending(p: Promise<unknown>): Promise<unknown> {
  return Promise.race([p.then(() => 'fulfilled', (err: unknown) => err), new Promise((r) => setTimeout(() => r('pending'), 200))]);
}

it("undici's default Agent cuts a request silent for longer than 300 s (the clock moves)", async () => {
  const agent = new Agent();
  try {
    const pending = request(`${url}/silent-headers`, { dispatcher: agent, method: 'POST', body: '{}' });
    pending.catch(() => undefined);
    await started(1);
    undiciTimers.tick(301_000);
    expect(await settledOrPending(pending)).toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
  } finally {
    await agent.destroy();
  }
});

it('modelFetch waits for response headers longer than undici\'s 300 s default (a day here), until its signal aborts', async () => {
  const ac = new AbortController();
  const pending = modelFetch(`${url}/silent-headers`, { method: 'POST', body: '{}', signal: ac.signal });
  pending.catch(() => undefined);
  const before = seen;
  await started(before + 1);
  undiciTimers.tick(ONE_DAY_MS + 1000);
  expect(await settledOrPending(pending)).toBe('pending');
  ac.abort();
  await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
});

it('modelFetch waits for the next body bytes longer than undici\'s 300 s default (a day here), until its signal aborts', async () => {
  const ac = new AbortController();
  const before = seen;
  const res = await modelFetch(`${url}/silent-body`, { method: 'POST', body: '{}', signal: ac.signal });
  const body = (res.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  expect(Buffer.from((await body.next()).value!).toString()).toBe('data: 1\n\n');
  const next = body.next();
  next.catch(() => undefined);
  await started(before + 1);
  undiciTimers.tick(ONE_DAY_MS + 1000);
  expect(await settledOrPending(next)).toBe('pending');
  ac.abort();
  await expect(next).rejects.toMatchObject({ name: 'AbortError' });
});

it('a model stream configured to wait an hour for the model is still waiting after 300 s of silence before its headers', async () => {
  const config = loadConfig({ OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: 'k', MODEL: 'm', MODEL_IDLE_TIMEOUT_MS: '3600000', MODEL_REQUEST_TIMEOUT_MS: '7200000', MODEL_MAX_RETRIES: '0' });
  const model = modelClientsFromConfig(config)!.responses!;
  const ac = new AbortController();
  const before = seen;
  const it = model.stream({ model: 'm', input: [{ type: 'message', role: 'user', content: 'hi' }], tools: [], toolChoice: 'auto' }, ac.signal)[Symbol.asyncIterator]();
  const first = it.next();
  first.catch(() => undefined);
  await started(before + 1);
  undiciTimers.tick(301_000);
  expect(await settledOrPending(first)).toBe('pending');
  ac.abort(new Error('test over'));
  await first.catch(() => undefined); // the stream ends (a caller's abort ends it quietly)
});
