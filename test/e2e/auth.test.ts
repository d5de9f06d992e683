/** Bearer auth on and off, startup refusal beyond loopback, and logs that never contain secrets. */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService, type TestService } from './support/service.js';
import { freePort, holdPorts, portIsFree, spawnService, waitHealthy } from './support/child.js';
import { loadConfig } from '../../src/config.js';
import { validateResponse } from './support/spec.js';

/** GET `path` with `headers` as raw `[name, value, …]` pairs, so a header can be sent twice as two fields. */
function getWithHeaders(url: string, path: string, headers: string[]): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, url), { method: 'GET', headers: ['Host', new URL(url).host, ...headers] });
    req.on('response', (r) => {
      let text = '';
      r.on('data', (c) => (text += c));
      r.on('end', () => resolve({ status: r.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

let model: ScriptedResponsesServer;
let svc: TestService;
const logLines: string[] = [];

beforeAll(async () => {
  model = await startScriptedResponsesServer();
  svc = await startTestService({
    modelBaseURL: model.baseURL,
    env: { AUTH_TOKENS: 'tok-alpha-1234567890, tok-beta-4567890123', LOG_LEVEL: 'trace' },
    logDestination: { write: (l: string) => void logLines.push(l) },
  });
});
afterAll(async () => {
  await svc.close();
  await model.close();
});

describe('with AUTH_TOKENS set', () => {
  it('answers /healthz and /readyz without a token', async () => {
    expect((await api(svc.url, 'GET', '/healthz')).status).toBe(200);
    expect((await api(svc.url, 'GET', '/readyz')).status).toBe(200);
  });

  it('refuses every other route without a valid bearer token, with the envelope', async () => {
    for (const [method, p] of [['GET', '/v1/turns'], ['POST', '/v1/turns'], ['GET', '/openapi.yaml'], ['POST', '/v1/tools/preview']] as const) {
      const none = await api(svc.url, method, p, method === 'POST' ? { input: 'x' } : undefined);
      expect(none.status).toBe(401);
      expect(none.body.error.code).toBe('unauthorized');
      expect(validateResponse(p, method, 401, none.body)).toEqual([]);
      const wrong = await api(svc.url, method, p, method === 'POST' ? { input: 'x' } : undefined, { authorization: 'Bearer tok-alpha-12' });
      expect(wrong.status).toBe(401);
    }
    const basic = await api(svc.url, 'GET', '/v1/turns', undefined, { authorization: 'Basic dG9rLWFscGhhLTEyMw==' });
    expect(basic.status).toBe(401);
  });

  it('says which scheme a header used when it is not Bearer (curl -u sends Basic), and never echoes credentials', async () => {
    const basic = await api(svc.url, 'GET', '/v1/turns', undefined, { authorization: 'Basic dXNlcjp0b2stYWxwaGEtMTIzNDU2Nzg5MA==' });
    expect(basic.status).toBe(401);
    expect(basic.body.error).toEqual({
      code: 'unauthorized',
      message: 'the Authorization header uses the Basic scheme; this service takes only a bearer token: send Authorization: Bearer <token>',
      details: { reason: 'not_bearer', expected: 'Authorization: Bearer <token>' },
    });
    const none = await api(svc.url, 'GET', '/v1/turns');
    expect(none.body.error.message).toBe('missing bearer token (Authorization: Bearer <token>)');
    expect(none.body.error.details).toEqual({ reason: 'missing_token', expected: 'Authorization: Bearer <token>' });
    const wrong = await api(svc.url, 'GET', '/v1/turns', undefined, { authorization: 'Bearer not-a-token-0000000' });
    expect(wrong.body.error.message).toBe('invalid bearer token: it is none of the tokens in AUTH_TOKENS; send Authorization: Bearer <one of AUTH_TOKENS> (METRICS_TOKEN is accepted on GET /metrics only)');
    expect(wrong.body.error.details).toEqual({ reason: 'invalid_token', expected: 'Authorization: Bearer <token>' });
    // A token sent without a scheme is not named back.
    const bare = await api(svc.url, 'GET', '/v1/turns', undefined, { authorization: 'tok-alpha-1234567890' });
    expect(bare.body.error.message).toBe('the Authorization header is not a bearer token; this service takes only a bearer token: send Authorization: Bearer <token>');
    expect(JSON.stringify(bare.body)).not.toContain('tok-alpha');
  });

  it('refuses a token in the URL, saying to send it in the Authorization header instead (never echoing it)', async () => {
    for (const [query, parameter] of [['access_token=tok-alpha-1234567890', 'access_token'], ['limit=1&TOKEN=tok-alpha-1234567890', 'TOKEN'], ['api_key=tok-beta-4567890123', 'api_key'], ['key=x', 'key']]) {
      const r = await api(svc.url, 'GET', `/v1/turns?${query}`);
      expect(r.status, query).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
      expect(r.body.error).toEqual({
        code: 'unauthorized',
        message: `tokens in the URL are not accepted (query parameter ${parameter}): send Authorization: Bearer <token> instead`,
        details: { reason: 'token_in_url', parameter, expected: 'Authorization: Bearer <token>' },
      });
      expect(JSON.stringify(r.body)).not.toMatch(/tok-(alpha|beta)/);
      expect(validateResponse('/v1/turns', 'get', 401, r.body)).toEqual([]);
    }
    // With an Authorization header, that header is what the message is about.
    const wrong = await api(svc.url, 'GET', '/v1/turns?access_token=tok-alpha-1234567890', undefined, { authorization: 'Bearer not-a-token-0000000' });
    expect(wrong.body.error.details.reason).toBe('invalid_token');
    // Other parameters are no token in the URL.
    for (const query of ['limit=1', 'monkey=1']) {
      expect((await api(svc.url, 'GET', `/v1/turns?${query}`)).body.error.details.reason, query).toBe('missing_token');
    }
  });

  it('tells a stream token sent to a route it does not open where stream tokens are accepted, and that this route needs the header', async () => {
    const streamRoutes = ['GET /v1/turns/{id}/events', 'GET /v1/workflows/{id}/events', 'GET /v1/jobs/{id}/events', 'GET /v1/turns/{id}/attachments/{attachment_id}'];
    for (const [method, p] of [['GET', '/v1/turns?stream_token=1.abc'], ['GET', '/v1/turns/0190/?limit=1&stream_token=1.abc'], ['POST', '/v1/turns/0190/cancel?stream_token=1.abc'], ['GET', '/metrics?stream_token=1.abc']] as const) {
      const r = await api(svc.url, method, p);
      expect(r.status, p).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
      expect(r.body.error, p).toEqual({
        code: 'unauthorized',
        message: "stream tokens (query parameter stream_token, from links.events) are accepted only on the event streams GET /v1/turns/{id}/events, GET /v1/workflows/{id}/events, GET /v1/jobs/{id}/events (and a turn's token on GET /v1/turns/{id}/attachments/{attachment_id}); this route needs the header Authorization: Bearer <token>",
        details: { reason: 'stream_token_not_accepted', parameter: 'stream_token', stream_routes: streamRoutes, expected: 'Authorization: Bearer <token>' },
      });
      expect(JSON.stringify(r.body)).not.toContain('1.abc');
    }
    expect(validateResponse('/v1/turns', 'get', 401, (await api(svc.url, 'GET', '/v1/turns?stream_token=x')).body)).toEqual([]);
    // With an Authorization header, that header is what the message is about.
    const wrong = await api(svc.url, 'GET', '/v1/turns?stream_token=x', undefined, { authorization: 'Bearer not-a-token-0000000' });
    expect(wrong.body.error.details.reason).toBe('invalid_token');
  });

  it('keeps the API reference (/docs, /openapi.yaml) behind the token too', async () => {
    for (const p of ['/docs', '/openapi.yaml']) {
      const none = await fetch(`${svc.url}${p}`);
      expect(none.status).toBe(401);
      expect((await none.json()).error.code).toBe('unauthorized');
      expect((await fetch(`${svc.url}${p}`, { headers: { authorization: 'Bearer tok-alpha-1234567890' } })).status).toBe(200);
    }
  });

  it('accepts each configured token', async () => {
    for (const t of ['tok-alpha-1234567890', 'tok-beta-4567890123']) {
      const r = await api(svc.url, 'GET', '/v1/turns', undefined, { authorization: `Bearer ${t}` });
      expect(r.status).toBe(200);
    }
    model.push({ output: [message('authorized answer')] });
    const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' }, { authorization: 'Bearer tok-beta-4567890123' });
    expect(turn.body.status).toBe('completed');
  });

  it('refuses two Authorization headers with 400 duplicate_header whichever comes first (Node reads only the first), as for a repeated Host', async () => {
    const valid = 'Bearer tok-alpha-1234567890';
    for (const [path, pair] of [
      ['/v1/turns', [valid, 'Bearer x']],
      ['/v1/turns', ['Bearer x', valid]],
      ['/v1/turns', [valid, valid]],
      ['/metrics', [valid, 'Bearer x']],
      ['/v1/turns/0190a000-0000-7000-8000-000000000000/events?stream_token=1.x', [valid, 'Bearer x']],
    ] as const) {
      const r = await getWithHeaders(svc.url, path, ['Authorization', pair[0], 'authorization', pair[1]]);
      expect(r.status, `${path} ${pair.join(' + ')}`).toBe(400);
      expect(r.body.error).toEqual({
        code: 'invalid_request',
        message: 'the Authorization header is given 2 times; give it once: send one Authorization: Bearer <token>',
        details: [{ path: 'headers.authorization', code: 'duplicate_header', message: 'is given 2 times; give it once' }],
      });
      expect(JSON.stringify(r.body)).not.toContain('tok-alpha');
    }
    const r = await getWithHeaders(svc.url, '/v1/turns', ['Authorization', valid, 'Authorization', 'Bearer x']);
    expect(validateResponse('/v1/turns', 'get', 400, r.body)).toEqual([]);
    // One header still works, and the open routes ignore Authorization altogether.
    expect((await getWithHeaders(svc.url, '/v1/turns', ['Authorization', valid])).status).toBe(200);
    expect((await getWithHeaders(svc.url, '/healthz', ['Authorization', 'Bearer x', 'Authorization', valid])).status).toBe(200);
  });

  it('never writes a token or the API key to the log', async () => {
    await api(svc.url, 'GET', '/v1/turns?stream_token=123.secret-in-url', undefined, { authorization: 'Bearer tok-alpha-1234567890' });
    await api(svc.url, 'GET', '/v1/turns', undefined, { authorization: 'Bearer wrong-token-789' });
    const text = logLines.join('');
    expect(text.length).toBeGreaterThan(0);
    for (const secret of ['tok-alpha-1234567890', 'tok-beta-4567890123', 'wrong-token-789', 'secret-in-url', 'test-key']) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('without AUTH_TOKENS', () => {
  it('accepts requests without a token on loopback', async () => {
    const open = await startTestService();
    try {
      expect((await api(open.url, 'GET', '/v1/turns')).status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('refuses to start on a non-loopback HOST, with a clear message and a non-zero exit', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'turns-host-'));
    try {
      const child = spawnService({ HOST: '0.0.0.0', PORT: '0', DATA_DIR: dir });
      const code = await child.exited;
      expect(code).not.toBe(0);
      expect(child.output()).toMatch(/AUTH_TOKENS/);
      expect(child.output()).toMatch(/0\.0\.0\.0/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start with a clear message per bad variable', async () => {
    const child = spawnService({ PORT: 'eighty', MAX_CONCURRENT_TURNS: '0', DATA_DIR: '/tmp/unused-turns' });
    expect(await child.exited).toBe(2);
    expect(child.output()).toMatch(/PORT/);
    expect(child.output()).toMatch(/MAX_CONCURRENT_TURNS/);
  });

  it('refuses to start with one clear line when DATA_DIR is not a usable folder', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'turns-datadir-'));
    try {
      const file = path.join(dir, 'a-file');
      writeFileSync(file, 'not a folder');
      const child = spawnService({ DATA_DIR: file, PORT: '0' });
      expect(await child.exited).toBe(2);
      expect(child.output()).toContain(`DATA_DIR=${file}: cannot use it as the data folder`);
      expect(child.output()).not.toMatch(/\n\s+at /); // no stack trace
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start a second service on a DATA_DIR another running service holds', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'turns-datadir-busy-'));
    const port = await freePort();
    const first = spawnService({ DATA_DIR: dir, PORT: String(port), LOG_LEVEL: 'silent' });
    try {
      await waitHealthy(`http://127.0.0.1:${port}`, first);
      const second = spawnService({ DATA_DIR: dir, PORT: String(await freePort()), LOG_LEVEL: 'silent' });
      expect(await second.exited).toBe(2);
      expect(second.output()).toContain(`refusing to start: DATA_DIR ${dir} is in use by another service process`);
      expect(second.output()).not.toMatch(/\n\s+at /); // no stack trace
      // The first one is unharmed, and once it is gone the folder is free again (also after SIGKILL).
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      first.proc.kill('SIGKILL');
      await first.exited;
      const port3 = await freePort();
      const third = spawnService({ DATA_DIR: dir, PORT: String(port3), LOG_LEVEL: 'silent' });
      try {
        await waitHealthy(`http://127.0.0.1:${port3}`, third);
      } finally {
        third.proc.kill('SIGTERM');
        await third.exited;
      }
    } finally {
      first.proc.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start with one clear line when the port is taken, suggesting a port that is free, and creates no DATA_DIR', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'turns-port-'));
    const dataDir = path.join(dir, 'not-yet', 'data');
    // The port and the one after it are taken: the suggestion is a port checked to be free.
    const held = await holdPorts(2);
    const port = held.port;
    try {
      const child = spawnService({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'silent' });
      expect(await child.exited).toBe(2);
      // One line saying the port is busy and what to do, without Node's own "listen EADDRINUSE: …" repeating it.
      const lines = child.output().trim().split('\n');
      expect(lines).toHaveLength(1);
      const m = /^refusing to start: port (\d+) on 127\.0\.0\.1 is busy \(another process listens on it\): stop that process, or choose another port, e\.g\. PORT=(\d+) npm start \(free now\)$/.exec(lines[0]);
      expect(m, lines[0]).not.toBeNull();
      expect(Number(m![1])).toBe(port);
      const suggested = Number(m![2]);
      expect([port, port + 1]).not.toContain(suggested);
      expect(await portIsFree(suggested)).toBe(true);
      // Refused before anything was created: no data folder (nor its parent), no database.
      expect(existsSync(path.join(dir, 'not-yet'))).toBe(false);
    } finally {
      await held.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('treats a blank variable as unset', () => {
    expect(loadConfig({ PORT: '  ', MODEL: ' gpt-x ' }).PORT).toBe(8787);
    expect(loadConfig({ MODEL: ' gpt-x ' }).MODEL).toBe('gpt-x');
  });
});
