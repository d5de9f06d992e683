/**
 * Auth that EventSource can use, and CORS — over real HTTP against the real service (bearer auth
 * on, scripted model). Browser-level behaviour is in console.test.ts / cross-origin.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { readSse } from '../e2e/support/sse-client.js';
import { signStreamToken } from '../../src/http/stream-token.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { CORS_EXPOSED_HEADERS, parseCorsOrigins } from '../../src/http/cors.js';
import { ROOT } from '../e2e/support/child.js';
import { request, startService, type BrowserTestService } from './support/service.js';

const BEARER = 'long-lived-bearer-token-123';
const SECRET = 'stream-secret-for-tests-0123456789';
const ALLOWED = 'http://app.example.test:5173';
const auth = { authorization: `Bearer ${BEARER}` };

let model: ScriptedResponsesServer;
let svc: BrowserTestService;

async function finishedTurn(text: string): Promise<{ id: string; links: { events: string } }> {
  model.push({ output: [message(text)] });
  const created = await request(`${svc.url}/v1/turns`, { method: 'POST', body: { input: 'hi', tools: [] }, headers: auth });
  expect(created.status).toBe(202);
  await svc.services.turns.waitForTerminal(created.body.id);
  return created.body;
}

beforeAll(async () => {
  model = await startScriptedResponsesServer();
  svc = await startService({
    modelBaseURL: model.baseURL,
    // debug: request lines (where a token in a URL could leak) are logged at debug level.
    env: { AUTH_TOKENS: BEARER, STREAM_TOKEN_SECRET: SECRET, CORS_ORIGINS: ALLOWED, LOG_LEVEL: 'debug' },
  });
});

afterAll(async () => {
  await svc?.close();
  await model?.close();
});

describe('stream tokens in links.events', () => {
  it('lets GET of that turn’s events through without a bearer header, from the first event to the last', async () => {
    const turn = await finishedTurn('streamed with a token');
    expect(turn.links.events).toMatch(new RegExp(`^/v1/turns/${turn.id}/events\\?stream_token=\\d+\\.[A-Za-z0-9_-]{43}$`));
    const res = await readSse(svc.url + turn.links.events);
    expect(res.status).toBe(200);
    expect(res.events[0].event).toBe('turn.started');
    expect(res.events.at(-1)!.event).toBe('turn.completed');
    expect(res.events.at(-1)!.json.output_text).toBe('streamed with a token');
  });

  it('is offered again, freshly signed, by GET /v1/turns/{id}', async () => {
    const turn = await finishedTurn('again');
    const got = await request(`${svc.url}/v1/turns/${turn.id}`, { headers: auth });
    expect(got.status).toBe(200);
    expect(got.body.links.events).toMatch(/\?stream_token=/);
    expect((await readSse(svc.url + got.body.links.events)).status).toBe(200);
  });

  it('refuses a token issued for another turn with 401 and the error envelope', async () => {
    const a = await finishedTurn('a');
    const b = await finishedTurn('b');
    const token = new URL(a.links.events, svc.url).searchParams.get('stream_token')!;
    const res = await request(`${svc.url}/v1/turns/${b.id}/events?stream_token=${token}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: { code: 'invalid_stream_token', message: expect.any(String), details: { stream: 'turn', id: b.id, refresh: `/v1/turns/${b.id}` } },
    });
  });

  it('refuses an expired token with 401 stream_token_expired', async () => {
    const turn = await finishedTurn('old');
    const expired = signStreamToken(SECRET, turn.id, Math.floor(Date.now() / 1000) - 1);
    const res = await request(`${svc.url}/v1/turns/${turn.id}/events?stream_token=${expired}`);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('stream_token_expired');
    expect(res.body.error.details).toEqual({ stream: 'turn', id: turn.id, refresh: `/v1/turns/${turn.id}` });
    // The same signature scheme with a future expiry is accepted: only the expiry made the difference.
    const fresh = signStreamToken(SECRET, turn.id, Math.floor(Date.now() / 1000) + 60);
    expect((await readSse(`${svc.url}/v1/turns/${turn.id}/events?stream_token=${fresh}`)).status).toBe(200);
  });

  it('opens nothing but GET of the events: not the turn, not cancel', async () => {
    const turn = await finishedTurn('scoped');
    const token = new URL(turn.links.events, svc.url).searchParams.get('stream_token')!;
    const get = await request(`${svc.url}/v1/turns/${turn.id}?stream_token=${token}`);
    expect(get.status).toBe(401);
    expect(get.body.error.code).toBe('unauthorized');
    const cancel = await request(`${svc.url}/v1/turns/${turn.id}/cancel?stream_token=${token}`, { method: 'POST' });
    expect(cancel.status).toBe(401);
  });

  it('never accepts the long-lived bearer token in a URL', async () => {
    const turn = await finishedTurn('no bearer in urls');
    for (const param of ['access_token', 'token', 'stream_token', 'authorization']) {
      const res = await request(`${svc.url}/v1/turns/${turn.id}/events?${param}=${BEARER}`);
      expect(res.status, param).toBe(401);
      expect(res.body.error).toBeDefined();
    }
    expect((await request(`${svc.url}/v1/turns?access_token=${BEARER}`)).status).toBe(401);
  });

  it('keeps stream tokens and bearer tokens out of the log', async () => {
    const turn = await finishedTurn('logged');
    const token = new URL(turn.links.events, svc.url).searchParams.get('stream_token')!;
    await readSse(svc.url + turn.links.events);
    await request(`${svc.url}/v1/turns/${turn.id}/events?access_token=${BEARER}`);
    const log = svc.logText();
    expect(log).toContain(`/v1/turns/${turn.id}/events`);
    expect(log).not.toContain(token);
    expect(log).not.toContain(token.split('.')[1]);
    expect(log).not.toContain(BEARER);
  });
});

describe('workflow stream tokens in links.events', () => {
  const RESULT_SCHEMA = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false };

  /** A one-task workflow run to its end; returns the creation answer (with links). */
  async function finishedWorkflow(): Promise<{ id: string; links: { self: string; events: string } }> {
    model.push({ output: [functionCall('submit_result', { result: { ok: true } })] });
    const created = await request(`${svc.url}/v1/workflows`, {
      method: 'POST',
      headers: auth,
      body: { title: 'tokened', tasks: [{ label: 'one', prompt: 'say ok', result_schema: RESULT_SCHEMA }] },
    });
    expect(created.status).toBe(201);
    const end = Date.now() + 15_000;
    for (;;) {
      const got = await request(`${svc.url}/v1/workflows/${created.body.id}`, { headers: auth });
      if (got.body.status === 'completed') break;
      expect(got.body.status).not.toMatch(/failed|cancelled/);
      if (Date.now() > end) throw new Error('workflow did not complete');
      await new Promise((r) => setTimeout(r, 20));
    }
    return created.body;
  }

  it('lets GET of that workflow’s events through without a bearer header, and GET /v1/workflows/{id} offers a fresh one', async () => {
    const wf = await finishedWorkflow();
    expect(wf.links.events).toMatch(new RegExp(`^/v1/workflows/${wf.id}/events\\?stream_token=\\d+\\.[A-Za-z0-9_-]{43}$`));
    const res = await readSse(svc.url + wf.links.events);
    expect(res.status).toBe(200);
    expect(res.events.map((e) => e.event)).toEqual(['workflow.started', 'task.started', 'task.succeeded', 'workflow.completed']);
    const got = await request(`${svc.url}/v1/workflows/${wf.id}`, { headers: auth });
    expect(got.body.links.events).toMatch(/\?stream_token=/);
    expect((await readSse(svc.url + got.body.links.events)).status).toBe(200);
    // Without any credential the stream stays closed.
    expect((await request(`${svc.url}/v1/workflows/${wf.id}/events`)).status).toBe(401);
  });

  it('refuses a token of another workflow, and a turn token for a workflow stream (and the reverse), with 401 invalid_stream_token', async () => {
    const a = await finishedWorkflow();
    const b = await finishedWorkflow();
    const tokenOf = (link: string) => new URL(link, svc.url).searchParams.get('stream_token')!;
    const foreign = await request(`${svc.url}/v1/workflows/${b.id}/events?stream_token=${tokenOf(a.links.events)}`);
    expect(foreign.status).toBe(401);
    expect(foreign.body).toEqual({
      error: { code: 'invalid_stream_token', message: expect.any(String), details: { stream: 'workflow', id: b.id, refresh: `/v1/workflows/${b.id}` } },
    });

    // Same id, other kind: a turn token signed for the workflow's id does not open the workflow
    // stream, and a workflow token does not open a turn stream of the same id.
    const exp = Math.floor(Date.now() / 1000) + 60;
    const turnKind = await request(`${svc.url}/v1/workflows/${a.id}/events?stream_token=${signStreamToken(SECRET, a.id, exp, 'turn')}`);
    expect(turnKind.status).toBe(401);
    expect(turnKind.body.error.code).toBe('invalid_stream_token');
    const turn = await finishedTurn('kinds differ');
    const wfKind = await request(`${svc.url}/v1/turns/${turn.id}/events?stream_token=${signStreamToken(SECRET, turn.id, exp, 'workflow')}`);
    expect(wfKind.status).toBe(401);
    expect(wfKind.body.error.code).toBe('invalid_stream_token');
    const turnToken = await request(`${svc.url}/v1/workflows/${a.id}/events?stream_token=${tokenOf(turn.links.events)}`);
    expect(turnToken.status).toBe(401);
    // The right kind with the same expiry is accepted: only the kind made the difference.
    expect((await readSse(`${svc.url}/v1/workflows/${a.id}/events?stream_token=${signStreamToken(SECRET, a.id, exp, 'workflow')}`)).status).toBe(200);
  });

  it('refuses an expired workflow token with 401 stream_token_expired, and opens nothing but the events', async () => {
    const wf = await finishedWorkflow();
    const expired = signStreamToken(SECRET, wf.id, Math.floor(Date.now() / 1000) - 1, 'workflow');
    const res = await request(`${svc.url}/v1/workflows/${wf.id}/events?stream_token=${expired}`);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('stream_token_expired');
    const token = new URL(wf.links.events, svc.url).searchParams.get('stream_token')!;
    expect((await request(`${svc.url}/v1/workflows/${wf.id}?stream_token=${token}`)).status).toBe(401);
    expect((await request(`${svc.url}/v1/workflows/${wf.id}/cancel?stream_token=${token}`, { method: 'POST' })).status).toBe(401);
  });
});

describe('schedule run links.events', () => {
  it('carries a stream token for the run’s turn that opens its events without a bearer header', async () => {
    model.push({ output: [message('fired by a schedule')] });
    const created = await request(`${svc.url}/v1/schedules`, {
      method: 'POST',
      headers: auth,
      body: { name: 'soon', when: { after: { value: 1, unit: 'second' } }, input: 'scheduled hello', tools: [] },
    });
    expect(created.status).toBe(201);
    const end = Date.now() + 15_000;
    let run: { turn_id: string; links: { turn: string; events: string } } | undefined;
    while (!run) {
      const runs = await request(`${svc.url}/v1/schedules/${created.body.id}/runs`, { headers: auth });
      expect(runs.status).toBe(200);
      if (runs.body.data[0]?.status === 'started') run = runs.body.data[0];
      else if (Date.now() > end) throw new Error('schedule did not fire');
      else await new Promise((r) => setTimeout(r, 50));
    }
    expect(run.links.turn).toBe(`/v1/turns/${run.turn_id}`);
    expect(run.links.events).toMatch(new RegExp(`^/v1/turns/${run.turn_id}/events\\?stream_token=\\d+\\.[A-Za-z0-9_-]{43}$`));
    const res = await readSse(svc.url + run.links.events);
    expect(res.status).toBe(200);
    expect(res.events.at(-1)!.json).toMatchObject({ type: 'turn.completed', output_text: 'fired by a schedule' });
  });
});

describe('CORS', () => {
  it('answers a preflight for a JSON POST with Authorization and Idempotency-Key from an allowed origin', async () => {
    const res = await fetch(`${svc.url}/v1/turns`, {
      method: 'OPTIONS',
      headers: {
        origin: ALLOWED,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,idempotency-key',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase();
    for (const h of ['authorization', 'content-type', 'idempotency-key', 'last-event-id', 'traceparent', 'tracestate']) expect(allowed).toContain(h);
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('lets an allowed origin use PUT, PATCH and DELETE where the path takes them (brain pages, schedules)', async () => {
    for (const [path, method] of [['/v1/agents/a1/brain/pages/notes', 'PUT'], ['/v1/schedules/some-id', 'PATCH'], ['/v1/schedules/some-id', 'DELETE']]) {
      const res = await fetch(`${svc.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin: ALLOWED, 'access-control-request-method': method, 'access-control-request-headers': 'authorization' },
      });
      expect(res.status).toBe(204);
      const methods = (res.headers.get('access-control-allow-methods') ?? '').split(/,\s*/);
      expect(methods).toContain(method);
      // Only the path's own methods: a schedule is not replaced with PUT.
      if (path.startsWith('/v1/schedules/')) expect(methods).not.toContain('PUT');
    }
  });

  it('gives a disallowed origin no CORS headers at all (the browser then blocks it)', async () => {
    const pre = await fetch(`${svc.url}/v1/turns`, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example.test', 'access-control-request-method': 'POST' },
    });
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    expect(pre.headers.get('access-control-allow-headers')).toBeNull();
    const get = await fetch(`${svc.url}/v1/turns`, { headers: { ...auth, origin: 'http://evil.example.test' } });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('puts the CORS header on SSE responses for an allowed origin only', async () => {
    const turn = await finishedTurn('cors sse');
    const ok = await readSse(svc.url + turn.links.events, { headers: { origin: ALLOWED } });
    expect(ok.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(ok.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    const other = await readSse(svc.url + turn.links.events, { headers: { origin: 'http://localhost:9' } });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('exposes the documented response headers to an allowed origin, on JSON, replayed and SSE answers; to no other origin', async () => {
    const exposed = (h: Headers) => (h.get('access-control-expose-headers') ?? '').split(/,\s*/).filter(Boolean).map((x) => x.toLowerCase()).sort();
    const want = CORS_EXPOSED_HEADERS.map((x) => x.toLowerCase()).sort();
    expect(want).toEqual(expect.arrayContaining(['location', 'x-turn-id', 'retry-after', 'idempotent-replayed']));
    model.push({ output: [message('exposed')] });
    const key = `expose-${Date.now()}`;
    const body = { input: 'expose', tools: [] };
    const created = await request(`${svc.url}/v1/turns`, { method: 'POST', body, headers: { ...auth, origin: ALLOWED, 'idempotency-key': key } });
    expect(created.status).toBe(202);
    expect(created.headers.get('location')).toBe(`/v1/turns/${created.body.id}`);
    expect(exposed(created.headers)).toEqual(want);
    await svc.services.turns.waitForTerminal(created.body.id);
    const replay = await request(`${svc.url}/v1/turns`, { method: 'POST', body, headers: { ...auth, origin: ALLOWED, 'idempotency-key': key } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(exposed(replay.headers)).toEqual(want);
    const sse = await readSse(`${svc.url}/v1/turns/${created.body.id}/events`, { headers: { ...auth, origin: ALLOWED } });
    expect(exposed(sse.headers)).toEqual(want);
    const refused = await request(`${svc.url}/v1/turns`, { headers: { origin: ALLOWED } }); // 401, WWW-Authenticate
    expect(refused.status).toBe(401);
    expect(exposed(refused.headers)).toEqual(want);
    // Another origin: a read is answered without CORS headers, and so is a POST carrying the token
    // (a browser would have sent it only after a preflight; the answer exposes nothing to that origin).
    const other = await request(`${svc.url}/v1/turns/${created.body.id}`, { headers: { ...auth, origin: 'http://evil.example.test' } });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-expose-headers')).toBeNull();
    const otherPost = await request(`${svc.url}/v1/turns`, { method: 'POST', body, headers: { ...auth, origin: 'http://evil.example.test', 'idempotency-key': key } });
    expect([otherPost.status, otherPost.headers.get('idempotent-replayed')]).toEqual([202, 'true']);
    expect(otherPost.headers.get('access-control-expose-headers')).toBeNull();
  });

  it('exposes every response header openapi.yaml documents, and README names them all', () => {
    const spec = parseYaml(readFileSync(path.join(ROOT, 'openapi.yaml'), 'utf8'));
    const documented = new Set<string>();
    const walk = (o: unknown): void => {
      if (!o || typeof o !== 'object') return;
      const headers = (o as { headers?: unknown }).headers;
      if (headers && typeof headers === 'object' && !Array.isArray(headers)) for (const h of Object.keys(headers)) documented.add(h.toLowerCase());
      for (const v of Object.values(o)) walk(v);
    };
    walk(spec.paths);
    walk(spec.components?.responses);
    expect(documented.size).toBeGreaterThan(0);
    const exposed = CORS_EXPOSED_HEADERS.map((h) => h.toLowerCase());
    for (const h of documented) expect(exposed, h).toContain(h);
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const said = readme.slice(readme.indexOf('Access-Control-Expose-Headers'), readme.indexOf('A typed client can be generated'));
    for (const h of CORS_EXPOSED_HEADERS) expect(said, h).toContain(`\`${h}\``);
  });

  it('refuses CORS_ORIGINS entries that are not bare origins', () => {
    expect([...parseCorsOrigins(['https://app.example.com/', 'http://127.0.0.1:8080'])]).toEqual([
      'https://app.example.com',
      'http://127.0.0.1:8080',
    ]);
    for (const bad of ['*', 'app.example.com', 'https://app.example.com/path', 'ftp://x.test', 'https://a.test?x=1']) {
      expect(() => parseCorsOrigins([bad]), bad).toThrow(/CORS_ORIGINS/);
    }
  });
});

describe('console page', () => {
  it('is served without a token, with a strict Content-Security-Policy, and its script is JavaScript', async () => {
    const page = await fetch(`${svc.url}/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('<script type="module" src="/console/app.js">');
    const js = await fetch(`${svc.url}/console/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    const code = await js.text();
    expect(code).toContain("from './api.js'");
    expect(code).not.toMatch(/\binterface\b|: HTMLElement\b/);
    expect((await fetch(`${svc.url}/console/..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${svc.url}/console/nope.js`)).status).toBe(404);
  });
});

describe('with auth off (no AUTH_TOKENS)', () => {
  it('links.events is the plain events URL, and a stray stream_token is simply ignored', async () => {
    const open = await startService({ modelBaseURL: model.baseURL });
    try {
      model.push({ output: [message('open turn')] });
      const created = await request(`${open.url}/v1/turns`, { method: 'POST', body: { input: 'hi', tools: [] } });
      expect(created.status).toBe(202);
      expect(created.body.links.events).toBe(`/v1/turns/${created.body.id}/events`);
      await open.services.turns.waitForTerminal(created.body.id);
      const res = await readSse(`${open.url}/v1/turns/${created.body.id}/events?stream_token=1.${'A'.repeat(43)}`);
      expect(res.status).toBe(200);
      expect(res.events.at(-1)!.event).toBe('turn.completed');
    } finally {
      await open.close();
    }
  });
});
