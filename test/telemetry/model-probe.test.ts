/**
 * The /readyz model probe (src/telemetry/model-probe.ts) against real HTTP servers on loopback:
 * an answer is "reachable" and is dropped without reading it — also a large one — and without
 * leaving an error nobody hears (an undici body destroyed unread emits one, which would end the
 * process); a refused connection is "unreachable" with its cause; through the real GET /readyz,
 * 401 (the key refused), a 2xx HTML page (a web site, not the API) and a 403 HTML page (a
 * firewall's block page), also one sent as text/plain or without a type, are not ready, while a JSON 403, 404 and other answers stay reachable.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { discardBody, modelFetch } from '../../src/model/model-fetch.js';
import { connectionError, httpErrorMessage } from '../../src/model/model-error.js';
import { createModelProbe } from '../../src/telemetry/model-probe.js';
import { freePort } from '../e2e/support/child.js';
import { api, startTestService } from '../e2e/support/service.js';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(handler: http.RequestListener): Promise<string> {
  const s = http.createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`;
}

/** Errors this process did not handle while `fn` ran and shortly after. */
async function unheard(fn: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const onError = (err: unknown) => seen.push(err);
  process.on('uncaughtException', onError);
  try {
    await fn();
    await sleep(100);
  } finally {
    process.off('uncaughtException', onError);
  }
  return seen;
}

describe('the model probe', () => {
  it('is reachable on any answer, drops it unread (small, large, an error status) and leaves no unheard error', async () => {
    const big = 'x'.repeat(1 << 20);
    const base = await serve((req, res) => {
      if (req.url === '/v1/models') return void res.writeHead(200, { 'content-type': 'application/json' }).end(`{"data":[],"pad":"${big}"}`);
      res.writeHead(404).end('{"error":{"message":"no such route"}}');
    });
    const errors = await unheard(async () => {
      expect(await createModelProbe(base, { ttlMs: 0 }).check()).toEqual({ reachable: true });
      expect(await createModelProbe(`${base}/nowhere`, { ttlMs: 0 }).check()).toEqual({ reachable: true });
    });
    expect(errors).toEqual([]);
  });

  it('reads no more than the start of a large text/plain answer to sniff it, and leaves no unheard error', async () => {
    const big = 'x'.repeat(1 << 20);
    const base = await serve((req, res) => {
      res.writeHead(req.url === '/v1/models' ? 403 : 200, { 'content-type': 'text/plain' });
      res.end(req.url === '/v1/models' ? `<!doctype html><p>${big}` : `plain ${big}`);
    });
    const errors = await unheard(async () => {
      expect(await createModelProbe(base, { ttlMs: 0 }).check()).toMatchObject({ reachable: false, check: 'not_api' });
      expect(await createModelProbe(`${base}/other`, { ttlMs: 0 }).check()).toEqual({ reachable: true });
    });
    expect(errors).toEqual([]);
  });

  it('is unreachable with the cause when nothing listens', async () => {
    const base = `http://127.0.0.1:${await freePort()}/v1`;
    const r = await createModelProbe(base, { ttlMs: 0 }).check();
    expect(r).toEqual({ reachable: false, check: 'unreachable', reason: expect.stringMatching(/^cannot reach the model endpoint .* \(ECONNREFUSED 127\.0\.0\.1:\d+\): check OPENAI_BASE_URL and that the model server is running/) });
  });

  it('never shows the credentials of the endpoint URL (GET /readyz needs no token): userinfo and key-like query parameters are masked', async () => {
    const port = await freePort();
    const r = await createModelProbe(`http://user:S3cretPassw0rdXYZ@127.0.0.1:${port}/v1?api-key=QueryS3cretVALUE123`, { ttlMs: 0 }).check();
    expect(r.reachable).toBe(false);
    const reason = (r as { reason: string }).reason;
    expect(reason).toContain(`cannot reach the model endpoint http://***@127.0.0.1:${port}/v1?api-key=[redacted] (ECONNREFUSED`);
    expect(reason).not.toMatch(/S3cretPassw0rdXYZ|QueryS3cretVALUE123/);
    const err = connectionError(Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNREFUSED', address: '127.0.0.1', port } }), `http://u:pw12345678@127.0.0.1:${port}/v1?key=QryValueZZZ999888`);
    expect(err.message).toContain(`the model endpoint http://***@127.0.0.1:${port}/v1?key=[redacted]`);
    expect(httpErrorMessage(401, 'bad key', 'https://api.example/v1?token=abc123secret')).toBe('the model endpoint https://api.example/v1?token=[redacted] answered HTTP 401 (check OPENAI_API_KEY): bad key');
    expect(httpErrorMessage(503, 'overloaded', 'https://u:pw@api.example/v1')).toBe('the model endpoint https://***@api.example/v1 answered HTTP 503: overloaded');
    // Azure Functions' key (?code=) and a session id count too; a parameter merely containing "code" does not.
    expect(httpErrorMessage(503, 'x', 'https://fn.example/api/v1?code=CODEsecret77777&session=SESSsecret000&encoded=plain')).toBe(
      'the model endpoint https://fn.example/api/v1?code=[redacted]&session=[redacted]&encoded=plain answered HTTP 503: x',
    );
  });
});

describe('GET /readyz and the answer of GET <base>/models', () => {
  const KEY = 'sk-probe-Secr3tKeyValue0123456789';
  /** /readyz of a real service whose model endpoint answers GET /v1/models with `answer`; also the authorization it got. */
  async function readyz(answer: (res: http.ServerResponse) => void, key: string | null = KEY, basePath = '/v1') {
    const seen: (string | undefined)[] = [];
    const base = (await serve((req, res) => {
      seen.push(req.headers.authorization);
      answer(res);
    })).replace(/\/v1$/, basePath);
    const svc = await startTestService({ env: { OPENAI_BASE_URL: base, OPENAI_API_KEY: key ?? '' } }); // null: no key
    try {
      const r = await api(svc.url, 'GET', '/readyz');
      return { ...r, base, seen, text: JSON.stringify(r.body) };
    } finally {
      await svc.close();
    }
  }

  for (const status of [401]) {
    it(`${status}: not ready, checks.model "rejected", naming the endpoint and the status and saying to check OPENAI_API_KEY, never the key`, async () => {
      const r = await readyz((res) => res.writeHead(status, { 'content-type': 'application/json' }).end('{"error":{"message":"Incorrect API key provided"}}'));
      expect(r.seen).toEqual([`Bearer ${KEY}`]); // the key is sent, as turns send it
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe('not_ready');
      expect(r.body.error.details.checks).toMatchObject({ database: 'ok', model: 'rejected' });
      expect(r.body.error.message).toBe(`the model endpoint ${r.base} answered HTTP ${status} to GET /models: it refuses the API key, so every turn would fail; check OPENAI_API_KEY`);
      expect(r.text).not.toContain('Secr3tKeyValue');
    });
  }

  it('401 without OPENAI_API_KEY: not ready, "rejected", saying the endpoint needs a key and OPENAI_API_KEY is not set', async () => {
    const r = await readyz((res) => res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"missing key"}}'), null);
    expect(r.status).toBe(503);
    expect(r.seen).toEqual([undefined]); // no key to send
    expect(r.body.error.details.checks).toMatchObject({ model: 'rejected' });
    expect(r.body.error.message).toBe(`the model endpoint ${r.base} answered HTTP 401 to GET /models: it needs an API key and OPENAI_API_KEY is not set, so every turn would fail; set OPENAI_API_KEY`);
  });

  it('a 200 HTML page: not ready, checks.model "not_api", saying it is a web page and to check OPENAI_BASE_URL, "usually ending in /v1" only when it does not', async () => {
    const page = (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Welcome</title>');
    const r = await readyz(page);
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('not_ready');
    expect(r.body.error.details.checks).toMatchObject({ database: 'ok', model: 'not_api' });
    expect(r.base).toMatch(/\/v1$/);
    expect(r.body.error.message).toBe(`the model endpoint ${r.base} answers GET /models with a web page (HTTP 200, text/html), not the API: check OPENAI_BASE_URL`);
    for (const basePath of ['', '/', '/api']) {
      const other = await readyz(page, KEY, basePath);
      expect(other.body.error.message, basePath).toBe(`the model endpoint ${other.base} answers GET /models with a web page (HTTP 200, text/html), not the API: check OPENAI_BASE_URL, which usually ends in /v1`);
    }
    const slash = await readyz(page, KEY, '/v1/');
    expect(slash.body.error.message).toMatch(/not the API: check OPENAI_BASE_URL$/);
  });

  it('a 200 page declared application/xhtml+xml (an HTML type, however it starts): not ready, "not_api", naming that type', async () => {
    const r = await readyz((res) => res.writeHead(200, { 'content-type': 'Application/XHTML+XML' }).end('<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body>Welcome</body></html>'));
    expect(r.status).toBe(503);
    expect(r.body.error.details.checks).toMatchObject({ model: 'not_api' });
    expect(r.body.error.message).toBe(`the model endpoint ${r.base} answers GET /models with a web page (HTTP 200, application/xhtml+xml), not the API: check OPENAI_BASE_URL`);
  });

  it('a 403 HTML page (a firewall\'s block page): not ready, checks.model "not_api", saying so and to check OPENAI_BASE_URL and that this host is let through', async () => {
    const r = await readyz((res) => res.writeHead(403, { 'content-type': 'text/html' }).end('<html><head><title>Access Denied</title></head><body>Request blocked by the firewall.</body></html>'));
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('not_ready');
    expect(r.body.error.details.checks).toMatchObject({ database: 'ok', model: 'not_api' });
    expect(r.body.error.message).toBe(
      `the model endpoint ${r.base} answers GET /models with a web page (HTTP 403, text/html), not the API — a firewall's or proxy's block page, or a web site: check OPENAI_BASE_URL, and that this host is let through to it`,
    );
    const root = await readyz((res) => res.writeHead(403, { 'content-type': 'text/html' }).end('<html><body>Blocked</body></html>'), KEY, '');
    expect(root.body.error.message).toMatch(/web site: check OPENAI_BASE_URL, which usually ends in \/v1, and that this host is let through to it$/);
    expect(r.text).not.toContain('Secr3tKeyValue');
  });

  it('a 2xx or 403 HTML page sent as text/plain or without a content type: not ready, "not_api", naming the type it came as; a plain-text 403 stays reachable', async () => {
    const page = '\n  <!DOCTYPE html>\n<html><head><title>Access Denied</title></head><body>Request blocked by the firewall.</body></html>';
    for (const [status, headers, body, sent] of [
      [403, { 'content-type': 'text/plain; charset=utf-8' }, page, 'an HTML page sent as text/plain'],
      [403, {}, '<!-- block page -->\n<HTML lang="en"><body>Blocked</body></HTML>', 'an HTML page sent without a content type'],
      [200, { 'content-type': 'text/plain' }, `<html>${'x'.repeat(1 << 20)}</html>`, 'an HTML page sent as text/plain'],
    ] as const) {
      const r = await readyz((res) => res.writeHead(status, headers).end(body));
      expect(r.status, sent).toBe(503);
      expect(r.body.error.details.checks, sent).toMatchObject({ database: 'ok', model: 'not_api' });
      expect(r.body.error.message, sent).toMatch(
        new RegExp(`^the model endpoint ${r.base.replace(/[.]/g, '\\.')} answers GET /models with a web page \\(HTTP ${status}, ${sent}\\), not the API[: —]`),
      );
    }
    for (const body of ['Forbidden', 'access to <html> pages is denied']) {
      const r = await readyz((res) => res.writeHead(403, { 'content-type': 'text/plain' }).end(body));
      expect(r.status, body).toBe(200);
      expect(r.body, body).toMatchObject({ status: 'ready', checks: { model: 'reachable' } });
    }
  });

  it('a proxy\'s 407 (Proxy Authentication Required): not ready, checks.model "unreachable", saying a proxy stands between and what to do', async () => {
    const r = await readyz((res) => res.writeHead(407, { 'proxy-authenticate': 'Basic realm="corp"', 'content-type': 'text/plain' }).end('Proxy Authentication Required'));
    expect(r.status).toBe(503);
    expect(r.body.error.details.checks).toMatchObject({ database: 'ok', model: 'unreachable' });
    expect(r.body.error.message).toBe(
      `a proxy between this host and the model endpoint ${r.base} answered HTTP 407 (Proxy Authentication Required) to GET /models: no turn would reach the model; let this host through the proxy, or give it the proxy's credentials`,
    );
  });

  it('404 (no /models), a JSON 403 (a key restricted to other endpoints), a 200 JSON list and a 500 stay reachable: ready', async () => {
    for (const answer of [
      (res: http.ServerResponse) => res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":{"message":"You have insufficient permissions for this operation. Missing scopes: api.model.read."}}'),
      (res: http.ServerResponse) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'),
      (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}'),
      (res: http.ServerResponse) => res.writeHead(500).end('oops'),
    ]) {
      const r = await readyz(answer);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: 'ready', checks: { database: 'ok', model: 'reachable' } });
    }
  });
});

describe('discardBody', () => {
  it('drops an unread undici body and a web body without an unheard error, and never rejects', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(200);
      res.write('part');
      setTimeout(() => res.end(' rest'), 20);
    });
    const errors = await unheard(async () => {
      await discardBody(await modelFetch(`${base}/a`, { method: 'GET' }));
      await discardBody(await fetch(`${base}/b`));
      await discardBody(new Response(null));
    });
    expect(errors).toEqual([]);
  });
});

it('asks GET /models under the base URL\'s path and keeps its query (an Azure-style ?api-key=), as turn requests do', async () => {
  const seen: string[] = [];
  const base = await serve((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
  });
  expect(await createModelProbe(`${base}?api-key=querysecret123`).check()).toEqual({ reachable: true });
  expect(await createModelProbe(`${base}/?api-version=2024-10-21`).check()).toEqual({ reachable: true });
  expect(seen).toEqual(['/v1/models?api-key=querysecret123', '/v1/models?api-version=2024-10-21']);
});
