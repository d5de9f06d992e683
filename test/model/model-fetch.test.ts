/**
 * The model clients' fetch (src/model/model-fetch.ts) against real HTTP servers on loopback, and
 * the real `openai` SDK on top of it: what the SDK relies on from a Response (status, headers,
 * a body it can iterate and cancel, error bodies as text/JSON) and what fetch does that model
 * traffic needs (redirects without leaking the key to another origin, aborts, connection errors).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI, { APIConnectionError, APIError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { modelFetch } from '../../src/model/model-fetch.js';
import { freePort } from '../e2e/support/child.js';
import { message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';

const servers: http.Server[] = [];
let scripted: ScriptedResponsesServer | undefined;
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  await scripted?.close();
  scripted = undefined;
});

async function serve(handler: http.RequestListener): Promise<string> {
  const s = http.createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

async function readAll(body: unknown): Promise<string> {
  let out = '';
  for await (const chunk of body as AsyncIterable<Uint8Array>) out += Buffer.from(chunk).toString('utf8');
  return out;
}

describe('modelFetch', () => {
  it('sends method, headers and a string body; answers status, headers (repeated ones kept) and a body the SDK can iterate', async () => {
    let seen: { method?: string; auth?: string; type?: string; body: string } = { body: '' };
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen = { method: req.method, auth: req.headers.authorization, type: req.headers['content-type'], body };
        res.writeHead(201, [['Content-Type', 'text/plain'], ['Set-Cookie', 'a=1'], ['Set-Cookie', 'b=2'], ['X-Request-Id', 'req_1']]);
        res.write('part one, ');
        setTimeout(() => res.end('part two'), 20);
      });
    });
    const res = await modelFetch(`${url}/v1/responses`, { method: 'post', headers: { Authorization: 'Bearer k', 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(seen).toEqual({ method: 'POST', auth: 'Bearer k', type: 'application/json', body: '{"a":1}' });
    expect(res.status).toBe(201);
    expect(res.ok).toBe(true);
    expect(res.headers.get('x-request-id')).toBe('req_1');
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await readAll(res.body)).toBe('part one, part two');
  });

  it('gives error bodies as text and JSON, with ok false', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"slow down"}}');
    });
    const a = await modelFetch(`${url}/x`, { method: 'POST', body: '{}' });
    expect(a.ok).toBe(false);
    expect(a.status).toBe(429);
    expect(await a.json()).toEqual({ error: { message: 'slow down' } });
    const b = await modelFetch(`${url}/x`, { method: 'POST', body: new TextEncoder().encode('{}') });
    expect(await b.text()).toBe('{"error":{"message":"slow down"}}');
  });

  it('follows a redirect, and drops Authorization when it goes to another origin', async () => {
    const auths: (string | undefined)[] = [];
    const other = await serve((req, res) => {
      auths.push(req.headers.authorization);
      res.end('moved here');
    });
    const first = await serve((req, res) => {
      auths.push(req.headers.authorization);
      res.writeHead(307, { location: `${other.replace('127.0.0.1', 'localhost')}/v1/responses` });
      res.end();
    });
    const res = await modelFetch(`${first}/v1/responses`, { method: 'POST', headers: { authorization: 'Bearer secret-key' }, body: '{}' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('moved here');
    expect(auths).toEqual(['Bearer secret-key', undefined]);
  });

  it('an abort before the answer rejects with the signal’s reason; an abort mid-body ends the body with an error', async () => {
    const url = await serve((req, res) => {
      if (req.url === '/slow') return; // never answers
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n'); // then nothing more
    });
    const early = new AbortController();
    const pending = modelFetch(`${url}/slow`, { method: 'POST', body: '{}', signal: early.signal });
    setTimeout(() => early.abort(new DOMException('stop', 'AbortError')), 20);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });

    const mid = new AbortController();
    const res = await modelFetch(`${url}/stream`, { method: 'POST', body: '{}', signal: mid.signal });
    const it = (res.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    expect(Buffer.from((await it.next()).value!).toString()).toBe('data: 1\n\n');
    setTimeout(() => mid.abort(), 20);
    await expect(it.next()).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('rejects a refused connection with the errno code the service reports (connection_error)', async () => {
    const port = await freePort();
    await expect(modelFetch(`http://127.0.0.1:${port}/v1/responses`, { method: 'POST', body: '{}' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('sends a body it cannot pass as text or bytes (form data) through Node\'s fetch', async () => {
    let type = '';
    const url = await serve((req, res) => {
      type = String(req.headers['content-type']);
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    const form = new FormData();
    form.set('purpose', 'test');
    const res = await modelFetch(`${url}/files`, { method: 'POST', body: form });
    expect(await res.text()).toBe('ok');
    expect(type).toMatch(/^multipart\/form-data; boundary=/);
  });
});

describe('the openai SDK on modelFetch', () => {
  it('streams a response, retries a 429 and reports 4xx bodies and refused connections as the SDK’s own errors', async () => {
    scripted = await startScriptedResponsesServer([
      { httpError: { status: 429, body: { error: { message: 'slow down', type: 'rate_limit', code: 'rate_limit_exceeded', param: null } } } },
      { output: [message('hello')] },
      { httpError: { status: 400, body: { error: { message: 'bad input', type: 'invalid_request_error', code: 'bad', param: 'input' } } } },
    ]);
    const client = new OpenAI({ baseURL: scripted.baseURL, apiKey: 'k', maxRetries: 1, fetch: modelFetch });
    const stream = await client.responses.create({ model: 'm', input: 'hi', stream: true });
    let text = '';
    for await (const e of stream) if (e.type === 'response.output_text.delta') text += e.delta;
    expect(text).toBe('hello');
    expect(scripted.requests).toHaveLength(2);
    expect(scripted.requests[1].headers.authorization).toBe('Bearer k');

    const bad = await client.responses.create({ model: 'm', input: 'hi', stream: true }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(APIError);
    expect(bad).toMatchObject({ status: 400, code: 'bad', message: expect.stringContaining('bad input') });

    const port = await freePort();
    const down = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'k', maxRetries: 0, fetch: modelFetch });
    const err = await down.responses.create({ model: 'm', input: 'hi', stream: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIConnectionError);
    expect((err as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('stops a stream the consumer leaves early, and the next request still gets an answer', async () => {
    scripted = await startScriptedResponsesServer([{ output: [message('a long answer that is cut')], delayMs: 20 }, { output: [message('next')] }]);
    const client = new OpenAI({ baseURL: scripted.baseURL, apiKey: 'k', maxRetries: 0, fetch: modelFetch });
    const first = await client.responses.create({ model: 'm', input: 'hi', stream: true });
    for await (const e of first) if (e.type === 'response.created') break;
    const second = await client.responses.create({ model: 'm', input: 'again', stream: true });
    let text = '';
    for await (const e of second) if (e.type === 'response.output_text.delta') text += e.delta;
    expect(text).toBe('next');
  });
});
