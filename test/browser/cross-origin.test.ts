/**
 * Cross-origin browser clients in Chromium: a page served from another port talks to the API with
 * fetch (JSON POST with Authorization and Idempotency-Key → preflight) and EventSource (stream
 * token in links.events). Only an origin in CORS_ORIGINS gets through, and its script can read the
 * documented response headers (Location, Idempotent-Replayed); a stream token opens only its own
 * turn's events, and only until it expires; a method the path does not take fails at the preflight
 * with the browser naming it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { signStreamToken } from '../../src/http/stream-token.js';
import { readSse } from '../e2e/support/sse-client.js';
import { launchChromium, type LaunchedBrowser } from './support/chromium.js';
import { startDropProxy } from './support/drop-proxy.js';
import { gate } from './support/gate.js';
import { request, startService, type BrowserTestService } from './support/service.js';

const BEARER = 'cross-origin-bearer-token';
const SECRET = 'cross-origin-stream-secret-0123';

/** A third-party app page: creates a turn with fetch, and follows each given events URL with EventSource. */
const APP_PAGE = `<!doctype html><meta charset="utf-8"><title>third-party app</title><script type="module">
const q = new URLSearchParams(location.search);
const api = q.get('api');
const result = { create: null, streams: {} };
window.__result = result;
const pending = [];
const create = { method: 'POST', body: JSON.stringify({ input: 'from another origin', tools: [] }),
  headers: { 'content-type': 'application/json', authorization: 'Bearer ' + q.get('bearer'), 'idempotency-key': 'k-' + Math.random() } };
// The create, then its replay (same Idempotency-Key): what the script can read of each answer's headers.
if (q.get('create') !== '0') pending.push(fetch(api + '/v1/turns', create)
  .then(async (r) => { result.create = { status: r.status, body: await r.json(), location: r.headers.get('location') }; })
  .then(() => fetch(api + '/v1/turns', create))
  .then(async (r) => { await r.json(); result.create.replayed = r.headers.get('idempotent-replayed'); },
        (e) => { result.create = { ...result.create, failed: String(e) }; }));
for (const [name, url] of JSON.parse(q.get('streams'))) {
  const s = { opened: false, opens: 0, events: [], ids: [], closedWithError: false };
  result.streams[name] = s;
  pending.push(new Promise((done) => {
    const es = new EventSource(api + url);
    es.onopen = () => { s.opened = true; s.opens += 1; };
    for (const t of ['turn.started', 'message.delta', 'message.completed', 'turn.completed', 'turn.failed', 'turn.cancelled']) {
      es.addEventListener(t, (e) => {
        s.events.push(t);
        s.ids.push(e.lastEventId);
        if (t.startsWith('turn.') && t !== 'turn.started') { es.close(); done(); }
      });
    }
    es.onerror = () => { if (es.readyState === EventSource.CLOSED) { s.closedWithError = true; done(); } };
  }));
}
Promise.all(pending).then(() => { result.done = true; });
</script>`;

interface AppResult {
  done?: boolean;
  create: { status?: number; body?: { id: string; links: { events: string } }; location?: string | null; replayed?: string | null; failed?: string } | null;
  streams: Record<string, { opened: boolean; opens: number; events: string[]; ids: string[]; closedWithError: boolean }>;
}

let model: ScriptedResponsesServer;
let svc: BrowserTestService;
let browser: LaunchedBrowser;
const pageServers: Server[] = [];
let allowedOrigin = '';
let otherOrigin = '';

async function servePage(): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(APP_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  pageServers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function finishedTurn(): Promise<{ id: string; links: { events: string } }> {
  model.push({ output: [message('hello from the turn')] });
  const created = await request(`${svc.url}/v1/turns`, {
    method: 'POST',
    body: { input: 'hi', tools: [] },
    headers: { authorization: `Bearer ${BEARER}` },
  });
  expect(created.status).toBe(202);
  await svc.services.turns.waitForTerminal(created.body.id);
  return created.body;
}

async function runApp(origin: string, streams: [string, string][]): Promise<AppResult> {
  const page = await browser.context.newPage();
  const q = new URLSearchParams({ api: svc.url, bearer: BEARER, streams: JSON.stringify(streams) });
  await page.goto(`${origin}/?${q}`);
  await page.waitForFunction(() => (window as unknown as { __result?: AppResult }).__result?.done === true, undefined, { timeout: 45_000 });
  const result = (await page.evaluate(() => (window as unknown as { __result: AppResult }).__result)) as AppResult;
  await page.close();
  return result;
}

beforeAll(async () => {
  allowedOrigin = await servePage();
  otherOrigin = await servePage();
  model = await startScriptedResponsesServer();
  svc = await startService({
    modelBaseURL: model.baseURL,
    env: { AUTH_TOKENS: BEARER, STREAM_TOKEN_SECRET: SECRET, CORS_ORIGINS: allowedOrigin },
  });
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
  await model?.close();
  for (const s of pageServers) await new Promise((r) => s.close(r));
});

describe('cross-origin pages in Chromium', () => {
  it('an allowed origin creates a turn and subscribes with its stream token; a token fails for another turn and after expiry', async () => {
    const mine = await finishedTurn();
    const other = await finishedTurn();
    const token = new URL(mine.links.events, svc.url).searchParams.get('stream_token')!;
    const expired = signStreamToken(SECRET, mine.id, Math.floor(Date.now() / 1000) - 5);
    model.push({ output: [message('created cross-origin')] });
    const result = await runApp(allowedOrigin, [
      ['own', mine.links.events],
      ['foreign', `/v1/turns/${other.id}/events?stream_token=${token}`],
      ['expired', `/v1/turns/${mine.id}/events?stream_token=${expired}`],
    ]);
    expect(result.create?.status).toBe(202);
    expect(result.create?.body?.links.events).toMatch(/stream_token=/);
    // The page's script reads the documented response headers (Access-Control-Expose-Headers).
    expect(result.create?.location).toBe(`/v1/turns/${result.create?.body?.id}`);
    expect(result.create?.replayed).toBe('true');
    // Exactly the turn's logged events, as a client with the bearer header sees them.
    const logged = await readSse(`${svc.url}/v1/turns/${mine.id}/events`, { headers: { authorization: `Bearer ${BEARER}` } });
    expect(logged.events.at(-1)!.event).toBe('turn.completed');
    expect(result.streams.own).toMatchObject({ opened: true, events: logged.events.map((e) => e.event), closedWithError: false });
    expect(result.streams.foreign).toMatchObject({ opened: false, events: [], closedWithError: true });
    expect(result.streams.expired).toMatchObject({ opened: false, events: [], closedWithError: true });
    await svc.services.turns.waitForTerminal(result.create!.body!.id);
  }, 90_000);

  it('a method the path does not take is refused at the preflight, and the browser says which method; one it takes goes through', async () => {
    const mine = await finishedTurn();
    const page = await browser.context.newPage();
    const logged: string[] = [];
    page.on('console', (m) => logged.push(m.text()));
    await page.goto(`${allowedOrigin}/?${new URLSearchParams({ api: svc.url, bearer: BEARER, create: '0', streams: '[]' })}`);
    const outcome = (await page.evaluate(async ({ api, bearer, id }) => {
      const headers = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' };
      const attempt = (method: string, path: string, body?: unknown) =>
        fetch(api + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }).then((r) => `status ${r.status}`, (e: unknown) => `failed: ${String(e)}`);
      return {
        deleteTurn: await attempt('DELETE', `/v1/turns/${id}`),
        putPage: await attempt('PUT', '/v1/agents/cross/brain/pages/notes', { title: 'Notes', markdown: 'x' }),
      };
    }, { api: svc.url, bearer: BEARER, id: mine.id })) as { deleteTurn: string; putPage: string };
    expect(outcome.putPage).toBe('status 201');
    expect(outcome.deleteTurn).toMatch(/^failed: TypeError/);
    await expect.poll(() => logged.join('\n'), { timeout: 5_000 }).toMatch(/Method DELETE is not allowed by Access-Control-Allow-Methods in preflight response/);
    await page.close();
  });

  it('an origin not in CORS_ORIGINS can neither create a turn nor subscribe, even with a valid stream token', async () => {
    const mine = await finishedTurn();
    const before = model.requests.length;
    const result = await runApp(otherOrigin, [['own', mine.links.events]]);
    expect(result.create?.failed).toMatch(/TypeError|Failed to fetch/);
    expect(result.streams.own).toMatchObject({ opened: false, events: [], closedWithError: true });
    // The preflight failed, so the POST never reached the service: no turn ran.
    expect(model.requests.length).toBe(before);
  }, 90_000);

  it('an allowed origin resumes a dropped stream by itself with Last-Event-ID: no duplicate, no gap', async () => {
    const proxy = await startDropProxy(svc.port);
    const page = await browser.context.newPage();
    try {
      const hold = gate();
      model.push(async () => {
        await hold.promise;
        return { output: [message('after the drop', { chunks: ['after ', 'the ', 'drop'] })] };
      });
      const created = await request(`${svc.url}/v1/turns`, { method: 'POST', body: { input: 'hi', tools: [] }, headers: { authorization: `Bearer ${BEARER}` } });
      expect(created.status).toBe(202);
      const q = new URLSearchParams({ api: proxy.url, create: '0', streams: JSON.stringify([['live', created.body.links.events]]) });
      await page.goto(`${allowedOrigin}/?${q}`);
      const seen = () => page.evaluate(() => (window as unknown as { __result: AppResult }).__result.streams.live.ids.length);
      await expect.poll(seen, { timeout: 45_000 }).toBeGreaterThanOrEqual(1);
      const before = proxy.eventRequests();
      proxy.hold();
      proxy.dropAll();
      hold.open();
      await svc.services.turns.waitForTerminal(created.body.id);
      proxy.release();
      await page.waitForFunction(() => (window as unknown as { __result?: AppResult }).__result?.done === true, undefined, { timeout: 45_000 });
      const live = (await page.evaluate(() => (window as unknown as { __result: AppResult }).__result.streams.live)) as AppResult['streams'][string];
      const logged = await readSse(`${svc.url}/v1/turns/${created.body.id}/events`, { headers: { authorization: `Bearer ${BEARER}` } });
      expect(live.ids).toEqual(logged.events.map((e) => e.id));
      expect(live.events).toEqual(logged.events.map((e) => e.event));
      expect(live.opens).toBeGreaterThanOrEqual(2);
      expect(proxy.lastEventIds().slice(before)[0]).toBe('1');
    } finally {
      await page.close();
      await proxy.close();
    }
  }, 90_000);
});
