/**
 * A request header the service names in a refusal (Content-Type 415, Host 421, Origin 403,
 * Accept 406) is shown escaped and bounded: control characters such as U+0085 and U+009B (bytes
 * 0x85, 0x9B, which Node reads as those characters) are written as `\uXXXX`, and a value of
 * thousands of characters is cut to its start and its length (src/unsafe-chars.ts
 * quoteForDisplayClipped in the message, escapeUnsafeCharsClipped in details), so the answer
 * stays small whatever was sent. Raw sockets, so the header bytes reach the server as written.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './support/service.js';

let svc: TestService;
let port: number;
beforeAll(async () => {
  svc = await startTestService();
  port = Number(new URL(svc.url).port);
});
afterAll(async () => {
  await svc.close();
});

/** Send `head` (its characters as bytes: latin1) and `body`; resolve with the status, the body text (UTF-8) and its parsed JSON once the server closes. */
function send(head: string, body = ''): Promise<{ status: number; text: string; json: any }> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body)])));
    const chunks: Buffer[] = [];
    s.on('data', (d) => chunks.push(d));
    s.on('error', reject);
    s.on('close', () => {
      const out = Buffer.concat(chunks).toString('utf8');
      const [h, ...rest] = out.split('\r\n\r\n');
      const text = rest.join('\r\n\r\n');
      resolve({ status: Number(h.split(' ')[1]), text, json: JSON.parse(text) });
    });
    setTimeout(() => s.destroy(), 5000);
  });
}

/** A request with `headers` (name → value, written as latin1 bytes) and a two-byte JSON body. */
function request(method: string, path: string, headers: Record<string, string>): Promise<{ status: number; text: string; json: any }> {
  const all: Record<string, string> = { Host: 'localhost', 'Content-Type': 'application/json', 'Content-Length': '2', Connection: 'close', ...headers };
  return send(`${method} ${path} HTTP/1.1\r\n${Object.entries(all).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`, '{}');
}

const C1 = 'a/\x9b[31m\x85x';
const LONG = `a/${'b'.repeat(12_000)}`;

function expectNoRawC1(r: { text: string }): void {
  expect(r.text).not.toMatch(/[\u0085\u009b]/);
  expect(r.text).toContain('\\\\u009B[31m\\\\u0085x');
}

describe('Content-Type of a body the route does not parse (415)', () => {
  for (const [method, path] of [['POST', '/v1/turns'], ['PUT', '/v1/skills/x'], ['PUT', '/v1/agents/default/skills']]) {
    it(`${method} ${path}: control characters escaped, a 12,000-character value cut`, async () => {
      const c1 = await request(method, path, { 'Content-Type': C1 });
      expect(c1.status).toBe(415);
      expect(c1.json.error.code).toBe('unsupported_media_type');
      // The skill routes' message names only the accepted types; the others quote the one sent.
      if (path !== '/v1/skills/x') expect(c1.json.error.message).toContain('Content-Type "a/\\u009B[31m\\u0085x" is not supported');
      expect(c1.json.error.details.content_type).toBe('a/\\u009B[31m\\u0085x');
      expectNoRawC1(c1);
      const long = await request(method, path, { 'Content-Type': LONG });
      expect(long.status).toBe(415);
      if (path !== '/v1/skills/x') expect(long.json.error.message).toContain(`Content-Type "a/${'b'.repeat(78)}"… (12002 characters) is not supported`);
      expect(long.json.error.details.content_type).toBe(`a/${'b'.repeat(78)}… (12002 characters)`);
      expect(long.text.length).toBeLessThan(2000);
    });
  }
});

describe('charset or Content-Encoding of a JSON body not taken (415)', () => {
  it('escapes control characters and cuts a 12,000-character charset or Content-Encoding', async () => {
    for (const headers of [{ 'Content-Type': `application/json; charset=x${'\x9b'.repeat(12_000)}` }, { 'Content-Encoding': `x${'\x9b'.repeat(12_000)}` }] as Record<string, string>[]) {
      const r = await request('POST', '/v1/turns', headers);
      expect(r.status).toBe(415);
      expect(r.json.error.message).toContain('"x\\u009B\\u009B');
      expect(r.json.error.message).toContain('… (12001 characters)');
      expect(r.text).not.toMatch(/[\u0085\u009b]/);
      expect(r.text.length).toBeLessThan(2000);
    }
  });
});

describe('Host not served (421)', () => {
  it('cuts a 12,000-character host of an absolute-form target', async () => {
    const r = await send(`GET http://${'h'.repeat(12_000)}/v1/turns HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    expect(r.status).toBe(421);
    expect(r.json.error.details).toEqual({ host: `${'h'.repeat(80)}… (12000 characters)`, target: 'absolute-form' });
    expect(r.text.length).toBeLessThan(2000);
  });

  it('escapes control characters and cuts a 12,000-character Host', async () => {
    const c1 = await request('GET', '/v1/turns', { Host: 'evil\x9b[31m\x85x' });
    expect(c1.status).toBe(421);
    expect(c1.json.error.message).toMatch(/^Host "evil\\u009B\[31m\\u0085x" is not served: /);
    expect(c1.json.error.details).toEqual({ host: 'evil\\u009B[31m\\u0085x' });
    expect(c1.text).not.toMatch(/[\u0085\u009b]/);
    const long = await request('GET', '/v1/turns', { Host: 'h'.repeat(12_000) });
    expect(long.status).toBe(421);
    expect(long.json.error.message).toMatch(new RegExp(`^Host "${'h'.repeat(80)}"… \\(12000 characters\\) is not served: `));
    expect(long.json.error.details).toEqual({ host: `${'h'.repeat(80)}… (12000 characters)` });
    expect(long.text.length).toBeLessThan(2000);
  });
});

describe('Origin refused (403)', () => {
  it('escapes control characters and cuts a 12,000-character Origin', async () => {
    const c1 = await request('POST', '/v1/turns', { Origin: 'https://e\x9b[31m\x85x' });
    expect(c1.status).toBe(403);
    expect(c1.json.error.code).toBe('origin_not_allowed');
    expect(c1.json.error.message).toContain('comes from origin "https://e\\u009B[31m\\u0085x" and is refused');
    expect(c1.json.error.details).toEqual({ origin: 'https://e\\u009B[31m\\u0085x' });
    expect(c1.text).not.toMatch(/[\u0085\u009b]/);
    for (const origin of [`https://${'o'.repeat(12_000)}.example`, `https://x${'\x9b'.repeat(12_000)}`]) {
      const long = await request('POST', '/v1/turns', { Origin: origin });
      expect(long.status).toBe(403);
      expect(long.json.error.message).toContain(`(${origin.length} characters) and is refused`);
      expect(long.json.error.details.origin).toMatch(new RegExp(`… \\(${origin.length} characters\\)$`));
      expect(long.text).not.toMatch(/[\u0085\u009b]/);
      expect(long.text.length).toBeLessThan(2000);
    }
    // A CORS preflight from such an origin, the same.
    const pre = await send(`OPTIONS /v1/turns HTTP/1.1\r\nHost: localhost\r\nOrigin: https://${'o'.repeat(12_000)}.example\r\nAccess-Control-Request-Method: POST\r\nConnection: close\r\n\r\n`);
    expect(pre.status).toBe(403);
    expect(pre.text.length).toBeLessThan(2000);
  });
});

describe('Accept ruling out every answer (406)', () => {
  it('escapes control characters and cuts a 12,000-character Accept in details', async () => {
    const c1 = await request('POST', '/v1/turns', { Accept: C1 });
    expect(c1.status).toBe(406);
    expect(c1.json.error.details.accept).toBe('a/\\u009B[31m\\u0085x');
    expect(c1.text).not.toMatch(/[\u0085\u009b]/);
    const long = await request('POST', '/v1/turns', { Accept: LONG });
    expect(long.status).toBe(406);
    expect(long.json.error.details.accept).toBe(`a/${'b'.repeat(78)}… (12002 characters)`);
    expect(long.text.length).toBeLessThan(2000);
  });
});
