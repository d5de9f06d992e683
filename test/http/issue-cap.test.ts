/**
 * A refusal lists at most 20 issues (details, and one line each in the message), saying how many
 * more there were: over the real server on loopback, for unknown query parameters, zod issues of a
 * body and workflow rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope } from '../../src/http/errors.js';
import { api, startTestService, type TestService } from '../e2e/support/service.js';
import { validateResponse } from '../e2e/support/spec.js';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';

let svc: TestService;
let model: ScriptedResponsesServer;
beforeAll(async () => {
  model = await startScriptedResponsesServer([]);
  svc = await startTestService({ modelBaseURL: model.baseURL });
});
afterAll(async () => {
  await svc.close();
  await model.close();
});

const note = (more: number) => `; and ${more} more problems not listed (details has the first 20): fix these and send again to see the rest`;

describe('refusals list at most 20 issues', () => {
  it('1500 unknown query parameters: the first 20 in details and message, the message counts the other 1480', async () => {
    const query = Array.from({ length: 1500 }, (_, i) => `p${i}=1`).join('&');
    const res = await fetch(`${svc.url}/v1/turns?${query}`);
    const text = await res.text();
    expect(res.status).toBe(400);
    const body = JSON.parse(text);
    expect(validateResponse('/v1/turns', 'get', 400, body)).toEqual([]);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.details).toHaveLength(20);
    expect(body.error.details.map((d: { path: string }) => d.path)).toEqual(Array.from({ length: 20 }, (_, i) => `p${i}`));
    expect(body.error.message.startsWith('query parameter p0 is not accepted by GET /v1/turns')).toBe(true);
    expect(body.error.message.endsWith(note(1480))).toBe(true);
    expect(body.error.message.split('; query parameter ')).toHaveLength(20);
    expect(text.length).toBeLessThan(20_000);
    // 20 or fewer are listed whole, with no note.
    const few = await api(svc.url, 'GET', `/v1/turns?${Array.from({ length: 20 }, (_, i) => `q${i}=1`).join('&')}`);
    expect(few.body.error.details).toHaveLength(20);
    expect(few.body.error.message).not.toContain('more problem');
  });

  it('an unknown query parameter\'s name is shown escaped and clipped, as a body\'s field name in a path', async () => {
    const odd = await api(svc.url, 'GET', `/v1/turns?${encodeURIComponent('\u202Ex\u0085')}=1`);
    expect(odd.status).toBe(400);
    expect(odd.body.error.details[0]).toMatchObject({ path: '\\u202Ex\\u0085', code: 'unknown_parameter' });
    expect(odd.body.error.message.startsWith('query parameter \\u202Ex\\u0085 is not accepted by GET /v1/turns')).toBe(true);
    const res = await fetch(`${svc.url}/v1/turns?${'k'.repeat(10_000)}=1&${'k'.repeat(10)}=1&${'k'.repeat(10)}=2`);
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(text.length).toBeLessThan(2_000);
    const body = JSON.parse(text);
    expect(validateResponse('/v1/turns', 'get', 400, body)).toEqual([]);
    expect(body.error.details.map((d: { path: string }) => d.path)).toEqual([`${'k'.repeat(80)}… (10000 characters)`, 'kkkkkkkkkk', 'kkkkkkkkkk']);
    expect(body.error.message.startsWith(`query parameter ${'k'.repeat(80)}… (10000 characters) is not accepted by GET /v1/turns`)).toBe(true);
  });

  it('zod issues of a body are cut the same way', async () => {
    // Two issues per message: 60 in all.
    const res = await api(svc.url, 'POST', '/v1/turns', { input: Array.from({ length: 30 }, () => ({ role: 'bogus', content: 1 })) });
    expect(res.status).toBe(400);
    expect(validateResponse('/v1/turns', 'post', 400, res.body)).toEqual([]);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details).toHaveLength(20);
    expect(res.body.error.details[19].path).toBe('input[9].content');
    expect(res.body.error.message.endsWith(`input[9].content must be a string, got 1${note(40)}`)).toBe(true);
  });

  it('1500 unknown body fields: the unknown-fields problem names the first 20 and counts the other 1480', async () => {
    const names = Array.from({ length: 1500 }, (_, i) => `unknown_field_${String(i).padStart(4, '0')}_`.padEnd(50, 'x'));
    const extra = Object.fromEntries(names.map((n) => [n, 1]));
    const listed = `${names.slice(0, 20).map((n) => JSON.stringify(n)).join(', ')} and 1480 more: accepted fields are `;
    for (const [path, body] of [
      ['/v1/turns', { input: 'hello', ...extra }],
      ['/v1/schedules', { ...extra }],
      ['/v1/tools/preview', { ...extra }],
    ] as const) {
      const res = await fetch(`${svc.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await res.text();
      expect(res.status, path).toBe(400);
      const parsed = JSON.parse(text);
      expect(validateResponse(path, 'post', 400, parsed), path).toEqual([]);
      const problem = parsed.error.details.find((d: { code: string }) => d.code === 'unrecognized_keys');
      expect(problem.message, path).toContain(`has unknown fields ${listed}`);
      expect(parsed.error.message, path).toContain(listed);
      expect(parsed.error.message, path).not.toContain(names[20]);
      expect(text.length, path).toBeLessThan(20_000);
    }
    // 20 or fewer are all named, with no count.
    const few = await api(svc.url, 'POST', '/v1/turns', { input: 'hello', ...Object.fromEntries(names.slice(0, 20).map((n) => [n, 1])) });
    expect(few.status).toBe(400);
    expect(few.body.error.message).toContain(`has unknown fields ${names.slice(0, 20).map((n) => JSON.stringify(n)).join(', ')}: accepted fields are `);
  });

  it('an unknown field name is quoted with its line breaks, escape sequences and bidi controls as \\uXXXX', async () => {
    const res = await api(svc.url, 'POST', '/v1/turns', { input: 'hello', 'a\u001b[31mb\nc\u202Ed"e': 1 });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('has unknown field "a\\u001B[31mb\\u000Ac\\u202Ed\\"e": accepted fields are ');
    expect(res.body.error.message).not.toMatch(/[\u0000-\u001f\u202e]/);
  });

  it('a very long unknown field name is shown by its start and its length, so the answer stays small', async () => {
    const name = 'k'.repeat(500_000);
    const res = await fetch(`${svc.url}/v1/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"input":"x","${name}":1}` });
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(text.length).toBeLessThan(8_000);
    const body = JSON.parse(text);
    expect(validateResponse('/v1/turns', 'post', 400, body)).toEqual([]);
    const shown = `"${'k'.repeat(80)}"… (500000 characters)`;
    expect(body.error.message).toMatch(new RegExp(`^the request body has unknown field ${shown.replace(/[.()]/g, '\\$&')}: accepted fields are `));
    expect(body.error.details[0]).toMatchObject({ path: '', code: 'unrecognized_keys' });
    expect(body.error.details[0].message.startsWith(`has unknown field ${shown}: `)).toBe(true);
    // 20 names of 40,000 characters each: 800 KB of names, a few KB of answer.
    const names = Array.from({ length: 20 }, (_, i) => `${String.fromCharCode(97 + i)}`.repeat(40_000));
    const many = await fetch(`${svc.url}/v1/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 'x', ...Object.fromEntries(names.map((n) => [n, 1])) }) });
    const manyText = await many.text();
    expect(many.status).toBe(400);
    expect(manyText.length).toBeLessThan(8_000);
    expect(JSON.parse(manyText).error.message).toContain(`"${'t'.repeat(80)}"… (40000 characters): accepted fields are `);
  });

  it('a long field name in a path (a key given twice) is shown by its start and its length', async () => {
    const name = 'k'.repeat(500_000);
    const res = await fetch(`${svc.url}/v1/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"input":"x","${name}":1,"${name}":2}` });
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(text.length).toBeLessThan(8_000);
    const body = JSON.parse(text);
    expect(body.error.code).toBe('duplicate_json_key');
    expect(body.error.details[0].path).toBe(`${'k'.repeat(80)}… (500000 characters)`);
  });

  it('a workflow with 30 problems: details has the first 20 and the message says so', async () => {
    // Each task's schema has two problems (a node without type, and anyOf).
    const schema = { type: 'object', properties: { v: { anyOf: [{ type: 'string' }, { type: 'integer' }] } }, required: ['v'], additionalProperties: false };
    const tasks = Array.from({ length: 15 }, (_, i) => ({ label: `t${i}`, prompt: 'p', result_schema: schema }));
    const res = await api(svc.url, 'POST', '/v1/workflows', { title: 'many', tasks });
    expect(res.status).toBe(400);
    expect(validateResponse('/v1/workflows', 'post', 400, res.body)).toEqual([]);
    expect(res.body.error.code).toBe('invalid_workflow');
    expect(res.body.error.details).toHaveLength(20);
    expect(res.body.error.message).toMatch(/^invalid workflow: tasks\[0\]\.result_schema\.properties\.v\.type: .* \(and 29 more problems: see details, which lists the first 20\)$/);
  });

  it('the envelope cuts any other refusal\'s details list to 20, the message counting the rest', () => {
    const details = Array.from({ length: 25 }, (_, i) => ({ path: `x${i}`, code: 'bad', message: 'is bad' }));
    expect(envelope('invalid_page', 'x0 is bad', details)).toEqual({ error: { code: 'invalid_page', message: `x0 is bad${note(5)}`, details: details.slice(0, 20) } });
    expect(envelope('invalid_page', 'x0 is bad', details.slice(0, 20))).toEqual({ error: { code: 'invalid_page', message: 'x0 is bad', details: details.slice(0, 20) } });
  });
});
