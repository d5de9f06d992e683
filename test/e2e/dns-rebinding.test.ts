/**
 * DNS rebinding: a web page that makes its own name resolve to 127.0.0.1 sends requests with its
 * own Host header. Without AUTH_TOKENS the service serves only requests addressed to loopback
 * names (plus ALLOWED_HOSTS) and answers others 421 with the error envelope, creating nothing.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './support/service.js';
import { validateResponse } from './support/spec.js';

/** One request to `svc` with an explicit Host header (fetch does not let a caller set Host). */
function request(svc: TestService, method: string, path: string, host: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const url = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({ host: '127.0.0.1', port: url.port, method, path, headers: { host, ...(data ? { 'content-type': 'application/json' } : {}), ...headers } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** Send `text` as written on a fresh connection to `svc`; resolve with the status and JSON body once the server closes. */
function raw(svc: TestService, text: string): Promise<{ status: number; body: any; head: string }> {
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(new URL(svc.url).port), '127.0.0.1', () => s.write(text));
    let out = '';
    s.on('data', (d) => (out += d));
    s.on('error', reject);
    s.on('close', () => {
      const [head, ...rest] = out.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body: JSON.parse(rest.join('\r\n\r\n')), head });
    });
    setTimeout(() => s.destroy(), 3000);
  });
}

/** Two Host fields, the first allowed: the request must be refused whichever host the check would read. */
async function expectDuplicateHostRefused(svc: TestService, extra = '') {
  for (const hosts of [['localhost', 'evil.example'], ['evil.example', 'localhost'], ['localhost', 'localhost']]) {
    const r = await raw(svc, `GET /v1/turns HTTP/1.1\r\nHost: ${hosts[0]}\r\nHost: ${hosts[1]}\r\n${extra}\r\n`);
    expect(r.status, hosts.join(' + ')).toBe(400);
    expect(r.body.error).toEqual({
      code: 'invalid_request',
      message: expect.stringMatching(/^the Host header is given 2 times; give it once: send one `Host: /),
      details: [{ path: 'headers.host', code: 'duplicate_header', message: 'is given 2 times; give it once' }],
    });
    expect(r.head).toMatch(/\r\nconnection: close/i);
    expect(validateResponse('/v1/turns', 'get', 400, r.body)).toEqual([]);
  }
}

describe('without AUTH_TOKENS', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { ALLOWED_HOSTS: 'turns.internal' } });
  });
  afterAll(() => svc?.close());

  it('refuses a turn addressed to a rebinding name with 421 host_not_allowed and creates nothing', async () => {
    const r = await request(svc, 'POST', '/v1/turns', 'rebind.attacker.example:8801', { input: 'run rm -rf ~', tools: ['computer'] });
    expect(r.status).toBe(421);
    expect(r.body.error).toMatchObject({ code: 'host_not_allowed', details: { host: 'rebind.attacker.example:8801' } });
    expect(r.body.error.message).toMatch(/without AUTH_TOKENS .* ALLOWED_HOSTS/);
    expect(validateResponse('/v1/turns', 'post', 421, r.body)).toEqual([]);
    expect((await request(svc, 'GET', '/v1/turns', '127.0.0.1')).body.data).toEqual([]);
    for (const host of ['attacker.example', '127.0.0.1.attacker.example', 'localhost.attacker.example:80', '[::2]:80', '127.1.attacker.example', '[64:ff9b::7f00:1]']) {
      expect((await request(svc, 'GET', '/v1/turns', host)).status, host).toBe(421);
    }
  });

  it('serves loopback names and addresses on any port, in every form that names one (127.1, [0:0:0:0:0:0:0:1], [::ffff:7f00:1]), and the names in ALLOWED_HOSTS', async () => {
    for (const host of ['127.0.0.1', `127.0.0.1:${new URL(svc.url).port}`, 'localhost:8787', 'LOCALHOST', 'app.localhost:3000', '[::1]:8787', '127.1.2.3', '127.1:8787', '0x7f.1', '[0:0:0:0:0:0:0:1]:8787', '[::ffff:7f00:1]', 'turns.internal:8787']) {
      expect((await request(svc, 'GET', '/v1/turns', host)).status, host).toBe(200);
    }
  });

  it('refuses a request with two Host headers with 400 duplicate_header (RFC 9112 §3.2), even when the first is loopback', async () => {
    await expectDuplicateHostRefused(svc);
    expect((await raw(svc, 'GET /v1/turns HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')).status).toBe(200);
  });

  it('checks the authority of an absolute-form target, which replaces Host: another name → 421, a loopback or allowed one is served', async () => {
    for (const target of ['http://evil.example/v1/turns', 'HTTP://Evil.Example:80/v1/turns?limit=1', 'http://user@evil.example/v1/turns']) {
      const r = await raw(svc, `GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
      expect(r.status, target).toBe(421);
      expect(r.body.error.code).toBe('host_not_allowed');
      expect(r.body.error.details.target).toBe('absolute-form');
      expect(r.body.error.message).toMatch(/^the request target names host .* send the path alone/);
    }
    const evil = await raw(svc, `POST http://evil.example:8801/v1/turns HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 13\r\nConnection: close\r\n\r\n{"input":"x"}`);
    expect([evil.status, evil.body.error.details]).toEqual([421, { host: 'evil.example:8801', target: 'absolute-form' }]);
    expect(validateResponse('/v1/turns', 'post', 421, evil.body)).toEqual([]);
    expect((await request(svc, 'GET', '/v1/turns', '127.0.0.1')).body.data).toEqual([]);
    for (const target of ['http://localhost:8787/v1/turns', 'http://turns.internal/v1/turns', 'http://[::1]/v1/turns']) {
      expect((await raw(svc, `GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`)).status, target).toBe(200);
    }
  });
});

describe('with AUTH_TOKENS', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { AUTH_TOKENS: 'tok-dns-rebinding-test' } });
  });
  afterAll(() => svc?.close());

  it('serves any Host to a request with a valid token (a rebinding page has none)', async () => {
    expect((await request(svc, 'GET', '/v1/turns', 'turns.example.com', undefined, { authorization: 'Bearer tok-dns-rebinding-test' })).status).toBe(200);
    expect((await request(svc, 'GET', '/v1/turns', 'rebind.attacker.example')).status).toBe(401);
  });

  it('still refuses two Host headers with 400 (before auth), and serves an absolute-form target to a request with a valid token', async () => {
    await expectDuplicateHostRefused(svc, 'Authorization: Bearer tok-dns-rebinding-test\r\n');
    await expectDuplicateHostRefused(svc);
    const r = await raw(svc, 'GET http://turns.example.com/v1/turns HTTP/1.1\r\nHost: turns.example.com\r\nAuthorization: Bearer tok-dns-rebinding-test\r\nConnection: close\r\n\r\n');
    expect([r.status, r.body.data]).toEqual([200, []]);
  });
});
