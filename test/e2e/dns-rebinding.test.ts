/**
 * DNS rebinding: a web page that makes its own name resolve to 127.0.0.1 sends requests with its
 * own Host header. Without AUTH_TOKENS the service serves only requests addressed to loopback
 * names (plus ALLOWED_HOSTS) and answers others 421 with the error envelope, creating nothing.
 */
import http from 'node:http';
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
    for (const host of ['attacker.example', '127.0.0.1.attacker.example', 'localhost.attacker.example:80', '[::2]:80']) {
      expect((await request(svc, 'GET', '/v1/turns', host)).status, host).toBe(421);
    }
  });

  it('serves loopback names and addresses on any port, and the names in ALLOWED_HOSTS', async () => {
    for (const host of ['127.0.0.1', `127.0.0.1:${new URL(svc.url).port}`, 'localhost:8787', 'LOCALHOST', 'app.localhost:3000', '[::1]:8787', '127.1.2.3', 'turns.internal:8787']) {
      expect((await request(svc, 'GET', '/v1/turns', host)).status, host).toBe(200);
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
});
