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
  it('bad percent-encoding in the path → 400 invalid_url', async () => {
    expectEnvelope(await raw(get('/v1/turns/%E0%A4%A/events')), 400, 'invalid_url');
  });

  it('a path parameter over the max length → 414 uri_too_long', async () => {
    expectEnvelope(await raw(get(`/v1/turns/${'a'.repeat(5000)}`)), 414, 'uri_too_long', ['/v1/turns/{id}', 'get']);
  });

  it('an unknown route → 404 not_found; a known path with another method → 405 method_not_allowed', async () => {
    expectEnvelope(await raw(get('/v1/nope')), 404, 'not_found');
    const deleted = await raw(`DELETE /v1/turns HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    expectEnvelope(deleted, 405, 'method_not_allowed', ['/v1/turns', 'post']);
    expect(deleted).toMatch(/\r\nallow: GET, HEAD, POST\r\n/i);
  });

  it('a malformed Content-Length → 400 malformed_request', async () => {
    expectEnvelope(await raw(`POST /v1/turns HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}`), 400, 'malformed_request');
  });

  it('an invalid method token or header → 400 malformed_request', async () => {
    expectEnvelope(await raw(`GE(T /v1/turns HTTP/1.1\r\nHost: localhost\r\n\r\n`), 400, 'malformed_request');
    expectEnvelope(await raw(`GET /v1/turns HTTP/1.1\r\nHost: localhost\r\nBad Header: y\r\n\r\n`), 400, 'malformed_request');
  });

  it('headers over the size limit → 431 headers_too_large', async () => {
    expectEnvelope(await raw(get('/v1/turns', `X-Big: ${'a'.repeat(20_000)}\r\n`)), 431, 'headers_too_large', ['/v1/turns', 'get']);
  });

  it('a Content-Length that disagrees with the body sent → 400 with the envelope', async () => {
    const r = await raw(`POST /v1/turns HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`);
    expectEnvelope(r, 400, 'malformed_request');
  });
});
