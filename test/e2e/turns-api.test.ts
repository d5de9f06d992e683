/**
 * Bad input and listing on the turn endpoints: every non-2xx carries the error envelope and no
 * client input produces a 500.
 */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { message, startScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService, useScriptedService } from './support/service.js';

const harness = useScriptedService({ env: { BODY_LIMIT_BYTES: '4096' } });

function expectEnvelope(body: any, code: string) {
  expect(body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
}

describe('paths', () => {
  it('reads a trailing slash as the same path: GET /v1/turns/ lists turns, /v1/turns/{id}/ is that turn', async () => {
    harness.model.push({ output: [message('hi')] });
    const created = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'slash', agent_id: 'slash' });
    const list = await api(harness.svc.url, 'GET', '/v1/turns/?agent_id=slash');
    expect(list.status).toBe(200);
    expect(list.body.data.map((t: any) => t.id)).toEqual([created.body.id]);
    expect((await api(harness.svc.url, 'GET', `/v1/turns/${created.body.id}/`)).body).toMatchObject({ id: created.body.id, status: 'completed' });
    // Doubled slashes read as one (they gave a 405 that named the very method used).
    expect((await api(harness.svc.url, 'GET', `/v1/turns/${created.body.id}//`)).body).toMatchObject({ id: created.body.id, status: 'completed' });
    expect((await api(harness.svc.url, 'GET', `/v1//turns/${created.body.id}`)).status).toBe(200);
  });
});

describe('bad requests', () => {
  it('rejects a malformed JSON body with 400 invalid_json', async () => {
    const r = await api(harness.svc.url, 'POST', '/v1/turns', '{"input": "hi",', {});
    expect(r.status).toBe(400);
    expectEnvelope(r.body, 'invalid_json');
  });

  it('rejects a body that is not JSON with 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await fetch(`${harness.svc.url}/v1/turns`, { method: 'POST', headers: { 'content-type': type }, body: 'input=hi' });
      expect(res.status).toBe(415);
      expectEnvelope(await res.json(), 'unsupported_media_type');
    }
  });

  it('rejects a body over BODY_LIMIT_BYTES with 413 naming the limit', async () => {
    const r = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'x'.repeat(5000) });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ error: { code: 'body_too_large', message: 'the request body is larger than 4096 bytes (BODY_LIMIT_BYTES); send a smaller one', details: { limit_bytes: 4096, source: 'BODY_LIMIT_BYTES' } } });
  });

  it('rejects unknown fields with 400 and the zod issues', async () => {
    const r = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'hi', temperature: 2 });
    expect(r.status).toBe(400);
    expectEnvelope(r.body, 'invalid_request');
    expect(r.body.error.details).toEqual([expect.objectContaining({ code: 'unrecognized_keys' })]);
  });

  it.each([
    ['bad agent_id', { input: 'hi', agent_id: '../etc' }, 'agent_id'],
    ['too long agent_id', { input: 'hi', agent_id: 'a'.repeat(65) }, 'agent_id'],
    ['missing input', {}, 'input'],
    ['empty input', { input: '' }, 'input'],
    ['bad role', { input: [{ role: 'tool', content: 'x' }] }, 'input[0].role'],
    ['max_steps 0', { input: 'hi', max_steps: 0 }, 'max_steps'],
    ['max_steps 501', { input: 'hi', max_steps: 501 }, 'max_steps'],
    ['unknown family', { input: 'hi', tools: ['shell'] }, 'tools[0]'],
    ['metadata not an object', { input: 'hi', metadata: [1] }, 'metadata'],
    ['body is an array', [1, 2], ''],
  ])('rejects %s with 400 naming the field', async (_name, body, path) => {
    const r = await api(harness.svc.url, 'POST', '/v1/turns', body);
    expect(r.status).toBe(400);
    expectEnvelope(r.body, 'invalid_request');
    expect(r.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('rejects a bad Idempotency-Key header with 400 naming the header, what is wrong and the rule', async () => {
    const rule = 'must be 1 to 255 visible ASCII characters (! to ~: no spaces, control or non-ASCII characters)';
    for (const [key, what] of [['x'.repeat(300), 'is 300 characters long'], ['a b', 'holds a character outside visible ASCII']]) {
      const r = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'hi' }, { 'idempotency-key': key });
      expect(r.status).toBe(400);
      expect(r.body.error).toEqual({
        code: 'invalid_request',
        message: `the Idempotency-Key header ${what}: it ${rule}; send a short token such as a UUID, or leave the header out`,
        details: [{ path: 'headers.idempotency-key', code: 'invalid_format', message: `${what}: it ${rule}` }],
      });
    }
  });

  it('refuses an Idempotency-Key header given twice as given twice, not as the joined value "a, b"', async () => {
    // fetch would join the two itself; node:http sends raw header pairs as they are (Host and
    // Content-Length included: it adds none to a list).
    const res = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const body = JSON.stringify({ input: 'hi', agent_id: 'dup-key' });
      const url = new URL(`${harness.svc.url}/v1/turns`);
      const req = http.request(url, {
        method: 'POST',
        headers: ['Host', url.host, 'Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body)), 'Idempotency-Key', 'key-a', 'idempotency-key', 'key-b'],
      });
      req.on('response', (r) => {
        let text = '';
        r.on('data', (c) => (text += c));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'invalid_request',
      message: 'the Idempotency-Key header is given 2 times; give it once',
      details: [{ path: 'headers.idempotency-key', code: 'duplicate_header', message: 'is given 2 times; give it once' }],
    });
    expect((await api(harness.svc.url, 'GET', '/v1/turns?agent_id=dup-key')).body.data).toEqual([]);
  });

  it('answers 404 with the envelope for unknown turns and routes', async () => {
    const id = '0190a000-0000-7000-8000-000000000000';
    for (const [method, path] of [['GET', `/v1/turns/${id}`], ['POST', `/v1/turns/${id}/cancel`], ['GET', '/v1/nothing']] as const) {
      const r = await api(harness.svc.url, method, path);
      expect(r.status).toBe(404);
      expectEnvelope(r.body, 'not_found');
    }
  });

  it('says a query parameter given twice is given twice, and a number too large is over the route\'s bound, as sent', async () => {
    const twice = await api(harness.svc.url, 'GET', '/v1/turns?limit=1&limit=2');
    expect(twice.status).toBe(400);
    expect(twice.body.error).toEqual({
      code: 'invalid_request',
      message: 'query parameter limit is given 2 times; give it once',
      details: [{ path: 'limit', code: 'duplicate_parameter', message: 'is given 2 times; give it once' }],
    });
    // One issue, the route's bound (not also Number.MAX_SAFE_INTEGER), the value as sent (not 1e+23).
    for (const sent of ['99999999999999999999999', '101']) {
      const huge = await api(harness.svc.url, 'GET', `/v1/turns?limit=${sent}`);
      expect(huge.status).toBe(400);
      expect(huge.body.error).toEqual({
        code: 'invalid_request',
        message: `limit must be at most 100, got ${sent}`,
        details: [{ path: 'limit', code: 'too_big', message: `must be at most 100, got ${sent}` }],
      });
    }
    const plain = 'must be an integer written in plain decimal digits, got';
    const cases: [string, string, string][] = [
      ['0', 'too_small', 'must be at least 1, got 0'],
      ['-3', 'too_small', 'must be at least 1, got -3'],
      ['1.5', 'invalid_type', `${plain} "1.5"`],
      ['abc', 'invalid_type', `${plain} "abc"`],
      ['', 'invalid_type', `${plain} ""`],
      // Only plain digits, as for integer environment variables: no exponent, hex, decimal point,
      // sign (`+` arrives as a space) or spaces.
      ['1e1', 'invalid_type', `${plain} "1e1"`],
      ['1e400', 'invalid_type', `${plain} "1e400"`],
      ['0x3', 'invalid_type', `${plain} "0x3"`],
      ['3.0', 'invalid_type', `${plain} "3.0"`],
      ['+3', 'invalid_type', `${plain} " 3"`],
      ['%2B3', 'invalid_type', `${plain} "+3"`],
      ['%203', 'invalid_type', `${plain} " 3"`],
      // Shown as other client values are: a bidi control or a C1 control as \uXXXX, a long value clipped.
      ['%E2%80%AE1%C2%85', 'invalid_type', `${plain} "\\u202E1\\u0085"`],
      ['x'.repeat(300), 'invalid_type', `${plain} "${'x'.repeat(40)}"… (300 characters)`],
    ];
    for (const [sent, code, message] of cases) {
      const r = await api(harness.svc.url, 'GET', `/v1/turns?limit=${sent}`);
      expect(r.status, sent).toBe(400);
      expect(r.body.error.details, sent).toEqual([{ path: 'limit', code, message }]);
    }
    expect((await api(harness.svc.url, 'GET', '/v1/turns?limit=020')).status).toBe(200);
  });

  it('refuses a query parameter the route does not accept, naming the ones it does, before anything is created or streamed', async () => {
    const before = (await api(harness.svc.url, 'GET', '/v1/turns?limit=100')).body.data.length;
    const typo = await api(harness.svc.url, 'POST', '/v1/turns?wiat=true', { input: 'not created' });
    expect(typo.status).toBe(400);
    const accepts = 'is not accepted by POST /v1/turns, which accepts only wait: check the spelling or leave it out';
    expect(typo.body.error).toEqual({
      code: 'invalid_request',
      message: `query parameter wiat ${accepts}`,
      details: [{ path: 'wiat', code: 'unknown_parameter', message: accepts }],
    });
    expect((await api(harness.svc.url, 'GET', '/v1/turns?limit=100')).body.data.length).toBe(before);

    harness.model.push({ output: [message('done')] });
    const done = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'events' });
    expect(done.body.status).toBe('completed');
    // A misspelt `after` would replay from the first event: refused, whatever the Accept.
    const events = await fetch(`${harness.svc.url}/v1/turns/${done.body.id}/events?last_event_id=3`, { headers: { accept: 'text/event-stream' } });
    expect(events.status).toBe(400);
    expect((await events.json()).error.details).toEqual([
      { path: 'last_event_id', code: 'unknown_parameter', message: `is not accepted by GET /v1/turns/{id}/events, which accepts only after, stream_token: check the spelling or leave it out` },
    ]);
    const ok = await fetch(`${harness.svc.url}/v1/turns/${done.body.id}/events?after=1`, { headers: { accept: 'text/event-stream' } });
    expect(ok.status).toBe(200);
    await ok.body?.cancel();

    const none = await api(harness.svc.url, 'GET', `/v1/turns/${done.body.id}?verbose=1&limit=1&limit=2`);
    expect(none.status).toBe(400);
    expect(none.body.error.details).toEqual([
      { path: 'verbose', code: 'unknown_parameter', message: 'is not accepted: GET /v1/turns/{id} takes no query parameters; leave it out' },
      { path: 'limit', code: 'unknown_parameter', message: 'is not accepted: GET /v1/turns/{id} takes no query parameters; leave it out' },
      { path: 'limit', code: 'duplicate_parameter', message: 'is given 2 times; give it once' },
    ]);
    // HEAD takes the query of its GET.
    expect((await fetch(`${harness.svc.url}/v1/turns?limit=1`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${harness.svc.url}/v1/turns?limt=1`, { method: 'HEAD' })).status).toBe(400);
    // Pages and probes outside /v1 are not checked (a browser or probe may add its own).
    expect((await api(harness.svc.url, 'GET', '/healthz?probe=k8s')).status).toBe(200);
  });

  it('reads null for an optional field of a new turn (as GET shows an unset one) as the field left out; null input is still refused', async () => {
    harness.model.push({ output: [message('nulls')] });
    const nulls = { instructions: null, model: null, model_api: null, agent_id: null, tools: null, max_steps: null, previous_turn_id: null, multitask_strategy: null, metadata: null, brain: null, skills: null, webhook: null, approvals: null, cancel_on_disconnect: null };
    const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'null fields', ...nulls });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'completed', agent_id: 'default', model: 'scripted-model', metadata: null, previous_turn_id: null, output_text: 'nulls' });
    // What GET answers can be sent back as it is.
    const got = (await api(harness.svc.url, 'GET', `/v1/turns/${r.body.id}`)).body;
    harness.model.push({ output: [message('again')] });
    const again = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'again', metadata: got.metadata, previous_turn_id: null });
    expect(again.body.status).toBe('completed');

    const noInput = await api(harness.svc.url, 'POST', '/v1/turns', { input: null });
    expect(noInput.status).toBe(400);
    expect(noInput.body.error.details).toMatchObject([{ path: 'input', code: 'invalid_union' }]);
    const preview = await api(harness.svc.url, 'POST', '/v1/tools/preview', { agent_id: null, tools: null, model: null, brain: null });
    expect(preview.status).toBe(200);
  });

  it('rejects bad list queries with 400', async () => {
    for (const q of ['status=done', 'limit=0', 'limit=101', 'agent_id=a%20b']) {
      const r = await api(harness.svc.url, 'GET', `/v1/turns?${q}`);
      expect(r.status).toBe(400);
      expectEnvelope(r.body, 'invalid_request');
    }
  });
});

describe('GET /v1/turns', () => {
  it('lists newest first with agent and status filters and cursor pagination', async () => {
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      harness.model.push({ output: [message(`answer ${i}`)] });
      const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: `q${i}`, agent_id: 'lister' });
      expect(r.status).toBe(200);
      created.push(r.body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: { body: { data: { id: string; agent_id: string }[]; next_cursor: string | null } } = await api(
        harness.svc.url,
        'GET',
        `/v1/turns?agent_id=lister&status=completed&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      for (const t of r.body.data) expect(t.agent_id).toBe('lister');
      seen.push(...r.body.data.map((t) => t.id));
      cursor = r.body.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual([...created].reverse());
    expect(pages).toBe(3);
    const none = await api(harness.svc.url, 'GET', '/v1/turns?agent_id=lister&status=failed');
    expect(none.body).toEqual({ data: [], next_cursor: null });
  });
});

describe('without a model endpoint', () => {
  it('answers 503 model_not_configured', async () => {
    const bare = await startTestService();
    try {
      const r = await api(bare.url, 'POST', '/v1/turns', { input: 'hi' });
      expect(r.status).toBe(503);
      expectEnvelope(r.body, 'model_not_configured');
    } finally {
      await bare.close();
    }
  });

  it('is not ready: /readyz answers 503 model_not_configured naming what to set, while /healthz stays 200', async () => {
    const bare = await startTestService();
    try {
      const ready = await api(bare.url, 'GET', '/readyz');
      expect(ready.status).toBe(503);
      expectEnvelope(ready.body, 'model_not_configured');
      expect(ready.body.error).toEqual({
        code: 'model_not_configured',
        message: 'no model endpoint is configured: set OPENAI_API_KEY and/or OPENAI_BASE_URL (to try the service without a model key, run `bash scripts/setup npm run demo -- --serve`, which starts it against a scripted local model)',
        details: { checks: { database: 'ok', engine: 'sqlite', model: 'not_configured' }, settings: ['OPENAI_API_KEY', 'OPENAI_BASE_URL'] },
      });
      expect((await api(bare.url, 'GET', '/healthz')).status).toBe(200);
    } finally {
      await bare.close();
    }
  });
});

describe('/readyz with a model endpoint', () => {
  it('is 200 once the configured endpoint answers, also without MODEL (turns that name a model run)', async () => {
    const ready = await api(harness.svc.url, 'GET', '/readyz');
    expect(ready.status, JSON.stringify(ready.body)).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', checks: { database: 'ok', engine: 'sqlite', model: 'reachable' } });
    const model = await startScriptedResponsesServer();
    const noModelName = await startTestService({ modelBaseURL: model.baseURL, env: { MODEL: '' } });
    try {
      expect((await api(noModelName.url, 'GET', '/readyz')).status).toBe(200);
      model.push({ output: [message('named')] });
      const named = await api(noModelName.url, 'POST', '/v1/turns?wait=true', { input: 'hi', model: 'scripted-model' });
      expect(named.body).toMatchObject({ status: 'completed', output_text: 'named' });
    } finally {
      await noModelName.close();
      await model.close();
    }
  });
});
