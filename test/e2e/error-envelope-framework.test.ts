/**
 * Every non-2xx the app sends carries the `{error:{code,message}}` envelope — also those that
 * Fastify (routing errors, unknown routes, shutdown) and Node's HTTP parser (malformed requests)
 * produce before any route runs. Raw sockets, so malformed requests reach the server as written.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './support/service.js';
import { validateResponse } from './support/spec.js';

let svc: TestService;
let port: number;
beforeAll(async () => {
  svc = await startTestService();
  port = Number(new URL(svc.url).port);
});
afterAll(async () => {
  await svc.close();
});

/** Send `text` on a fresh connection; resolve with everything received until the server closes. */
function raw(text: string, p = port): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(p, '127.0.0.1', () => s.write(text));
    let out = '';
    s.on('data', (d) => (out += d));
    s.on('close', () => resolve(out));
    s.on('error', () => resolve(out));
    setTimeout(() => s.destroy(), 3000);
  });
}

function parse(response: string): { status: number; contentType: string; body: any } {
  const [head, ...rest] = response.split('\r\n\r\n');
  const status = Number(head.split(' ')[1]);
  const contentType = /\r\ncontent-type: *([^\r\n]*)/i.exec(head)?.[1] ?? '';
  return { status, contentType, body: JSON.parse(rest.join('\r\n\r\n')) };
}

/** The response has `status`, the envelope with `code`, and — with `documented` (`[path, method]`) — validates as openapi.yaml documents that status there. */
function expectEnvelope(response: string, status: number, code: string, documented?: [string, string]) {
  const r = parse(response);
  if (documented) expect(validateResponse(documented[0], documented[1], status, r.body)).toEqual([]);
  expect(r.status).toBe(status);
  expect(r.contentType).toMatch(/^application\/json/);
  expect(Object.keys(r.body)).toEqual(['error']);
  expect(r.body.error.code).toBe(code);
  expect(typeof r.body.error.message).toBe('string');
}

const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${extra}Connection: close\r\n\r\n`;

describe('errors raised by Fastify or Node carry the envelope', () => {
  it('bad percent-encoding in the path → 400 invalid_url, saying how to encode, details {part, path}', async () => {
    const r = await raw(get('/v1/turns/%E0%A4%A/events'));
    expectEnvelope(r, 400, 'invalid_url');
    expect(parse(r).body.error.message).toMatch(/^the URL path is not valid percent-encoded UTF-8: write a literal % as %25/);
    expect(parse(r).body.error.details).toEqual({ part: 'path', path: '/v1/turns/%E0%A4%A/events' });
  });

  it('bad percent-encoding in the query of an API route → 400 invalid_url too (not an unknown parameter named %zz), details {part, query, bad}', async () => {
    for (const [query, bad] of [['%zz=1', ['%zz=1']], ['limit=1&after=%E0%A4%A', ['after=%E0%A4%A']]] as const) {
      const r = await raw(get(`/v1/turns?${query}`));
      expectEnvelope(r, 400, 'invalid_url', ['/v1/turns', 'get']);
      expect(parse(r).body.error.message).toMatch(/^the URL query is not valid percent-encoded UTF-8: /);
      expect(parse(r).body.error.details).toEqual({ part: 'query', query, bad });
    }
    // Well-formed escapes are read as usual.
    expect(parse(await raw(get('/v1/turns?%6Cimit=1'))).status).toBe(200);
  });

  it('a query parameter with an empty name is refused saying so (not "query parameter  is not accepted")', async () => {
    const r = parse(await raw(get('/v1/turns?=1')));
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/^a query parameter has an empty name \(`\?=value`\): GET \/v1\/turns accepts only .*; write the name before the =$/);
    expect(r.body.error.details).toEqual([{ path: '', code: 'unknown_parameter', message: expect.stringMatching(/^has an empty name/) }]);
  });

  it('a path parameter over the max length → 414 uri_too_long, naming the limit', async () => {
    const r = await raw(get(`/v1/turns/${'a'.repeat(5000)}`));
    expectEnvelope(r, 414, 'uri_too_long', ['/v1/turns/{id}', 'get']);
    expect(parse(r).body.error.details).toEqual({ max_param_length: 128 });
    expect(parse(r).body.error.message).toMatch(/longer than 128 characters: .*check the URL$/);
  });

  it('an unknown route → 404 not_found; a known path with another method → 405 method_not_allowed', async () => {
    expectEnvelope(await raw(get('/v1/nope')), 404, 'not_found');
    const deleted = await raw(`DELETE /v1/turns HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    expectEnvelope(deleted, 405, 'method_not_allowed', ['/v1/turns', 'post']);
    expect(deleted).toMatch(/\r\nallow: GET, HEAD, POST\r\n/i);
  });

  it('a malformed Content-Length → 400 malformed_request, with the parser\'s code and reason in details', async () => {
    const r = await raw(`POST /v1/turns HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}`);
    expectEnvelope(r, 400, 'malformed_request');
    expect(parse(r).body.error.details).toEqual({ parser_code: 'HPE_INVALID_CONTENT_LENGTH', reason: expect.any(String) });
    expect(parse(r).body.error.message).toMatch(/^malformed HTTP request \(HPE_INVALID_CONTENT_LENGTH: .+\): .*send a well-formed HTTP\/1\.1 request$/);
  });

  it('an invalid method token or header → 400 malformed_request', async () => {
    expectEnvelope(await raw(`GE(T /v1/turns HTTP/1.1\r\nHost: localhost\r\n\r\n`), 400, 'malformed_request');
    expectEnvelope(await raw(`GET /v1/turns HTTP/1.1\r\nHost: localhost\r\nBad Header: y\r\n\r\n`), 400, 'malformed_request');
  });

  it('headers, or a URL, over the size limit → 431 headers_too_large saying both count', async () => {
    const r = await raw(get('/v1/turns', `X-Big: ${'a'.repeat(20_000)}\r\n`));
    expectEnvelope(r, 431, 'headers_too_large', ['/v1/turns', 'get']);
    expect(parse(r).body.error.details).toEqual({ max_bytes: 16384 });
    expect(parse(r).body.error.message).toBe('the request line and headers together are larger than 16384 bytes: send a shorter URL or fewer or shorter headers (a very long URL or large cookies are common causes)');
    // The request line counts too: a URL of 20,000 characters with small headers gets the same answer.
    const longUrl = await raw(get(`/v1/turns?limit=${'1'.repeat(20_000)}`));
    expectEnvelope(longUrl, 431, 'headers_too_large', ['/v1/turns', 'get']);
    expect(parse(longUrl).body.error.message).toMatch(/^the request line and headers together are larger than 16384 bytes: send a shorter URL .*a very long URL/);
  });

  it('an HTTP/1.1 request without Host → 400 missing_host (details, message saying to send Host), on API and service routes alike; HTTP/1.0 may leave it out', async () => {
    for (const path of ['/v1/turns', '/healthz', '/v1/nope']) {
      const r = await raw(`GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`);
      expectEnvelope(r, 400, 'missing_host', path === '/v1/nope' ? undefined : [path, 'get']);
      const { body } = parse(r);
      expect(body.error.message).toMatch(/no Host header.*send `Host: /);
      expect(body.error.message).toContain(`(e.g. \`Host: localhost:${new URL(svc.url).port}\`)`); // the port it listens on
      expect(body.error.details).toEqual({ header: 'host', http_version: '1.1' });
      expect(r).toMatch(/\r\nconnection: close\r\n/i);
    }
    // Kept alive by the client: the server still closes after the answer (raw() gives up after 3 s).
    const started = Date.now();
    expectEnvelope(await raw(`GET /healthz HTTP/1.1\r\n\r\n`), 400, 'missing_host');
    expect(Date.now() - started).toBeLessThan(2000);
    const old = parse(await raw(`GET /healthz HTTP/1.0\r\n\r\n`));
    expect([old.status, old.body]).toEqual([200, { status: 'ok' }]);
  });

  it('an HTTP/1.1 request with an empty Host → 400 missing_host saying the header is empty (not 421 for a host named "")', async () => {
    for (const host of ['Host:', 'Host: ', 'Host: \t']) {
      const r = await raw(`GET /v1/turns HTTP/1.1\r\n${host}\r\nConnection: close\r\n\r\n`);
      expectEnvelope(r, 400, 'missing_host', ['/v1/turns', 'get']);
      expect(parse(r).body.error.message).toMatch(/^the Host header is empty, .*send `Host: /);
      expect(parse(r).body.error.details).toEqual({ header: 'host', http_version: '1.1' });
    }
  });

  it('a Content-Length that disagrees with the body sent → 400 with the envelope', async () => {
    const r = await raw(`POST /v1/turns HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`);
    expectEnvelope(r, 400, 'malformed_request');
  });
});
