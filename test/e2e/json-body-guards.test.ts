/**
 * The app's JSON body parser (src/http/json-body.ts): deeply nested bodies are a 400 with details
 * on every route (never a 500 from a stack overflow), a charset other than UTF-8 is a 415, and a
 * stack-overflow RangeError that still escapes a route is a 400; bytes that are not UTF-8 and
 * malformed JSON are a 400 `invalid_json` that says where and what to send.
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedResponsesServer, message, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { askWithHead } from './support/request-head.js';
import { api, startTestService, type TestService } from './support/service.js';
import { installErrorHandlers } from '../../src/http/error-handler.js';
import { installJsonBodyParser, MAX_JSON_DEPTH } from '../../src/http/json-body.js';

let model: ScriptedResponsesServer;
let svc: TestService;
beforeAll(async () => {
  model = await startScriptedResponsesServer(Array.from({ length: 10 }, () => ({ output: [message('ok')] })));
  svc = await startTestService({ modelBaseURL: model.baseURL });
});
afterAll(async () => {
  await svc.close();
  await model.close();
});

/** `n` nested arrays: `[[…]]`. */
const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('deeply nested JSON bodies', () => {
  const cases: [string, string, string][] = [
    ['turn metadata', '/v1/turns', `{"input":"x","metadata":{"a":${nested(5000)}}}`],
    ['schedule metadata', '/v1/schedules', `{"name":"n","input":"x","when":{"after":{"value":10,"unit":"minute"}},"metadata":{"a":${nested(5000)}}}`],
    ['schedule when', '/v1/schedules', `{"name":"n","input":"x","when":${nested(5000)}}`],
    ['workflow result_schema', '/v1/workflows', `{"title":"t","tasks":[{"label":"l","prompt":"p","result_schema":{"a":${nested(5000)}}}]}`],
    ['tools preview', '/v1/tools/preview', `{"tools":${nested(5000)}}`],
  ];
  for (const [name, path, body] of cases) {
    it(`rejects 5000 levels in ${name} with 400 invalid_request and the path`, async () => {
      const res = await api(svc.url, 'POST', path, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details[0]).toMatchObject({ code: 'too_deep' });
      expect(res.body.error.details[0].path).toMatch(/^(metadata\.a|when|tasks\[0\]\.result_schema\.a|tools)\[0\]\[0\]/);
    });
  }

  it(`accepts exactly ${MAX_JSON_DEPTH} levels and rejects ${MAX_JSON_DEPTH + 1}`, async () => {
    // body object = level 1, metadata = 2, metadata.a = 3: the array adds MAX-2 more levels.
    const ok = await api(svc.url, 'POST', '/v1/turns', `{"input":"x","metadata":{"a":${nested(MAX_JSON_DEPTH - 2)}}}`);
    expect(ok.status).toBe(202);
    const tooDeep = await api(svc.url, 'POST', '/v1/turns', `{"input":"x","metadata":{"a":${nested(MAX_JSON_DEPTH - 1)}}}`);
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.error.details[0].code).toBe('too_deep');
  });
});

describe('prototype keys in JSON bodies', () => {
  const cases: [string, string, string, string][] = [
    ['__proto__ at the top', `{"input":"x","__proto__":{"polluted":true}}`, '__proto__', '__proto__'],
    ['constructor.prototype in metadata', `{"input":"x","metadata":{"constructor":{"prototype":{"polluted":true}}}}`, 'constructor.prototype', 'metadata.constructor.prototype'],
    ['__proto__ inside a list', `{"input":"x","metadata":{"list":[1,{"__proto__":{}}]}}`, '__proto__', 'metadata.list[1].__proto__'],
  ];
  for (const [name, body, key, path] of cases) {
    it(`refuses ${name} with 400 forbidden_json_key naming the key, its path and what to do; nothing is stored`, async () => {
      const before = (await api(svc.url, 'GET', '/v1/turns?limit=100')).body.data.length;
      const res = await api(svc.url, 'POST', '/v1/turns', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: 'forbidden_json_key',
        message: `the JSON key "${key}" (at ${path}) is not accepted, because it can change object prototypes: rename the key`,
        details: [{ path, code: 'forbidden_key', message: `"${key}" is not accepted as a key` }],
      });
      expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
      expect((await api(svc.url, 'GET', '/v1/turns?limit=100')).body.data.length).toBe(before);
    });
  }

  it('refuses a prototype key after a UTF-8 byte order mark as forbidden_json_key too (the BOM is skipped, as for any body)', async () => {
    const res = await api(svc.url, 'POST', '/v1/turns', `\ufeff{"input":"x","metadata":{"__proto__":{"polluted":true}}}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'forbidden_json_key', details: [{ path: 'metadata.__proto__', code: 'forbidden_key' }] });
    const broken = await api(svc.url, 'POST', '/v1/turns', `\ufeff{"input":"x","__proto__":`);
    expect(broken.body.error.code).toBe('invalid_json');
  });

  it('accepts a constructor key that is not an object with prototype, and still calls broken JSON invalid_json', async () => {
    const ok = await api(svc.url, 'POST', '/v1/turns', `{"input":"x","metadata":{"constructor":"me","proto":1}}`);
    expect(ok.status).toBe(202);
    const broken = await api(svc.url, 'POST', '/v1/turns', `{"input":"x","__proto__":`);
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_json');
  });
});

describe('duplicate keys in JSON bodies', () => {
  const cases: [string, string, string, string][] = [
    ['a top-level field', `{"input":"a","input":"b"}`, 'input', 'input'],
    ['a field spelled with an escape', `{"input":"a","max_steps":3,"\\u0069nput":"b"}`, 'input', 'input'],
    ['a key in a list item', `{"input":"x","metadata":{"list":[{"k":1},{"k":2,"s":"\\"k\\",","k":3}]}}`, 'k', 'metadata.list[1].k'],
  ];
  for (const [name, body, key, path] of cases) {
    it(`refuses ${name} given twice with 400 duplicate_json_key naming the key and its path; nothing is stored`, async () => {
      const before = (await api(svc.url, 'GET', '/v1/turns?limit=100')).body.data.length;
      const res = await api(svc.url, 'POST', '/v1/turns', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: 'duplicate_json_key',
        message: `the JSON key "${key}" appears more than once in one object (at ${path}): JSON parsers keep only the last value, so the others would be silently dropped; send each key once`,
        details: [{ path, code: 'duplicate_key', message: `"${key}" is given more than once` }],
      });
      expect((await api(svc.url, 'GET', '/v1/turns?limit=100')).body.data.length).toBe(before);
    });
  }

  it('quotes a key with a bidi control as every refusal does (\\u202E, not the raw character that reorders the line)', async () => {
    const res = await api(svc.url, 'POST', '/v1/turns', '{"input":"x","metadata":{"a\u202Eb":1,"a\u202Eb":2}}');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('duplicate_json_key');
    expect(res.body.error.message).toContain('the JSON key "a\\u202Eb" appears more than once');
    expect(res.body.error.details[0].message).toBe('"a\\u202Eb" is given more than once');
    expect(JSON.stringify(res.body)).not.toContain('\u202E'); // no raw U+202E anywhere
  });

  it('accepts the same key in different objects (siblings, list items, nested)', async () => {
    const ok = await api(svc.url, 'POST', '/v1/turns', `{"input":"x","metadata":{"input":{"input":1},"a":{"k":1},"b":{"k":2},"list":[{"k":1},{"k":1}]}}`);
    expect(ok.status).toBe(202);
  });
});

describe('malformed bodies', () => {
  it('refuses bytes that are not UTF-8 with 400 invalid_json and stores no turn (never U+FFFD to the model)', async () => {
    const before = (await api(svc.url, 'GET', '/v1/turns?limit=100')).body.data.length;
    const res = await fetch(`${svc.url}/v1/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat([Buffer.from('{"input":"'), Buffer.from([0xff, 0xfe]), Buffer.from(' bad utf8"}')]) });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toEqual({
      code: 'invalid_json',
      message: 'request body is not valid UTF-8; send JSON encoded as UTF-8',
      details: [{ path: '', code: 'invalid_json', message: 'request body is not valid UTF-8' }],
    });
    expect((await api(svc.url, 'GET', '/v1/turns?limit=100')).body.data.length).toBe(before);
    // Valid multi-byte UTF-8 is fine.
    expect((await api(svc.url, 'POST', '/v1/turns', '{"input":"grüße 😀"}')).status).toBe(202);
  });

  it('says where malformed JSON breaks and what to send', async () => {
    const r = await api(svc.url, 'POST', '/v1/turns', '{"input":"x",}');
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_json');
    expect(r.body.error.message).toMatch(/^request body is not valid JSON \(.*position 13.*\); send one JSON value/);
    expect(r.body.error.details).toEqual([{ path: '', code: 'invalid_json', message: expect.stringContaining('position 13') }]);
    // The parser quotes a few characters of the body: a bidi or C1 control among them is shown as \uXXXX.
    const odd = await api(svc.url, 'POST', '/v1/turns', '{"input":\u202E\u0085}');
    expect(odd.body.error.code).toBe('invalid_json');
    expect(odd.body.error.message).toContain('\\u202E');
    expect(JSON.stringify(odd.body.error)).not.toMatch(/[\u0080-\u009f\u202e]/);
  });
});

describe('Content-Type charset', () => {
  it('answers 415 for application/json; charset=utf-16 and stores no turn', async () => {
    const before = (await api(svc.url, 'GET', '/v1/turns?limit=100')).body.data.length;
    const res = await api(svc.url, 'POST', '/v1/turns', '{"input":"x"}', { 'content-type': 'application/json; charset=utf-16' });
    expect(res.status).toBe(415);
    // The same details as every JSON 415 ({content_type, accepted}), plus the charset refused.
    expect(res.body.error.code).toBe('unsupported_media_type');
    expect(res.body.error.details).toEqual({ content_type: 'application/json', accepted: ['application/json'], charset: 'utf-16' });
    expect(res.body.error.message).toMatch(/send the JSON body encoded as UTF-8/);
    expect((await api(svc.url, 'GET', '/v1/turns?limit=100')).body.data.length).toBe(before);
  });

  it('accepts charset=UTF-8 (any case, quoted) and no charset', async () => {
    for (const ct of ['application/json; charset=UTF-8', 'application/json;charset="utf-8"', 'application/json']) {
      const res = await api(svc.url, 'POST', '/v1/turns', '{"input":"x"}', { 'content-type': ct });
      expect(res.status, ct).toBe(202);
    }
  });
});

describe('a stack overflow escaping a route', () => {
  it('is answered 400 invalid_request, not 500', async () => {
    const app = Fastify();
    installJsonBodyParser(app);
    installErrorHandlers(app);
    app.post('/overflow', async (request) => {
      const recurse = (n: number): number => recurse(n + 1) + 1;
      return { n: recurse(0), body: request.body };
    });
    try {
      const res = await app.inject({ method: 'POST', url: '/overflow', payload: { a: 1 } });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    } finally {
      await app.close();
    }
  });
});

describe('unpaired UTF-16 surrogates', () => {
  // Written as JSON escapes: UTF-8 cannot carry a lone surrogate, only `\udXXX` in the JSON text can.
  it('refuses a lone surrogate in a value with 400 invalid_json naming the field, before any turn exists', async () => {
    const before = await api(svc.url, 'GET', '/v1/turns?limit=100');
    const res = await api(svc.url, 'POST', '/v1/turns?wait=true', '{"input":"lone \\ud83d here"}');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
    expect(res.body.error.message).toMatch(/^request body: input contains an unpaired UTF-16 surrogate .*send the character itself in UTF-8/);
    expect(res.body.error.details).toEqual([expect.objectContaining({ path: 'input', code: 'invalid_unicode' })]);
    const after = await api(svc.url, 'GET', '/v1/turns?limit=100');
    expect(after.body.data.length).toBe(before.body.data.length);
  });

  it('names the path inside lists and objects, a low half alone and a key too', async () => {
    const msg = await api(svc.url, 'POST', '/v1/turns', '{"input":[{"role":"user","content":"ok"},{"role":"user","content":"x\\ude00"}]}');
    expect(msg.status).toBe(400);
    expect(msg.body.error.details[0].path).toBe('input[1].content');
    const key = await api(svc.url, 'POST', '/v1/turns', '{"input":"x","metadata":{"k\\ud800":"v"}}');
    expect(key.status).toBe(400);
    expect(key.body.error.details[0].path).toBe('metadata.k\ufffd');
  });

  it('accepts a surrogate pair written as escapes, and the text escape \\\\ud83d', async () => {
    const pair = await api(svc.url, 'POST', '/v1/turns?wait=true', '{"input":"smile \\ud83d\\ude00 and \\\\ud83d"}');
    expect(pair.status).toBe(200);
    expect(pair.body.input_preview).toBe('smile 😀 and \\ud83d');
  });
});

describe('Expect: 100-continue', () => {
  const ask = (head: string) => askWithHead(svc.url, head);

  it('refuses a JSON body over BODY_LIMIT_BYTES before it is sent: 413 body_too_large instead of 100 Continue', async () => {
    const out = await ask('POST /v1/turns HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5242880\r\nExpect: 100-continue\r\n\r\n');
    expect(out).toMatch(/^HTTP\/1\.1 413 /);
    expect(out).not.toContain('100 Continue');
    const body = JSON.parse(out.split('\r\n\r\n')[1]);
    expect(body.error).toMatchObject({ code: 'body_too_large', details: { limit_bytes: 1024 * 1024 } });
  });

  it('lets a body within the limit come: 100 Continue', async () => {
    const out = await ask('POST /v1/turns HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 15\r\nExpect: 100-continue\r\n\r\n');
    expect(out).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
  });
});

describe('compressed bodies', () => {
  it('refuses a gzip Content-Encoding with 415 saying to send the body uncompressed, not "not valid UTF-8"', async () => {
    const { gzipSync } = await import('node:zlib');
    const res = await fetch(`${svc.url}/v1/turns`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync('{"input":"hi"}') });
    const body = await res.json();
    expect(res.status).toBe(415);
    expect(body.error.code).toBe('unsupported_media_type');
    expect(body.error.details).toEqual({ content_type: 'application/json', accepted: ['application/json'], content_encoding: 'gzip' });
    expect(body.error.message).toMatch(/send the JSON body uncompressed/);
  });
});
