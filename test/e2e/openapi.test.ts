/**
 * openapi.yaml matches the service: every registered route is documented (and nothing else), the
 * SSE event schemas equal the ones derived from the zod event schemas, and real responses —
 * JSON bodies, errors and every streamed event — validate against the spec.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { registeredRoutes } from '../../src/app.js';
import { TOOL_FAMILIES } from '../../src/config.js';
import { eventComponentName, turnEventComponents } from '../../src/http/event-schemas.js';
import { PROVIDER_TEXT_MAX_CHARS } from '../../src/model/provider-text.js';
import { TURN_ERROR_CODE_DESCRIPTION, TURN_ERROR_MESSAGE_DESCRIPTION, TurnEvent } from '../../src/runtime/events.js';
import { CreateTurnBody, PreviewToolsBody } from '../../routes/turn-schemas.js';
import { message, functionCall } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from './support/service.js';
import { readSse } from './support/sse-client.js';
import { spec, validateComponent, validateResponse } from './support/spec.js';
import { todoThenAnswer } from './support/scripts.js';

const harness = useScriptedService({ env: { BODY_LIMIT_BYTES: '2048' } });

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('openapi.yaml', () => {
  it('documents every route the service registers, and only those', () => {
    const served = new Set(
      registeredRoutes(harness.svc.app)
        .filter((r) => METHODS.includes(r.method.toLowerCase()))
        .filter((r) => !r.url.includes('*') && !/^\/(docs|console)\/./.test(r.url))
        .map((r) => ({ ...r, url: r.url.length > 1 ? r.url.replace(/\/$/, '') : r.url }))
        .map((r) => `${r.method.toLowerCase()} ${r.url.replace(/:([A-Za-z_]+)/g, '{$1}')}`),
    );
    const documented = new Set<string>();
    for (const [p, item] of Object.entries(spec.paths as Record<string, Record<string, unknown>>)) {
      for (const m of Object.keys(item)) if (METHODS.includes(m)) documented.add(`${m} ${p}`);
    }
    expect([...served].filter((r) => !documented.has(r)).sort()).toEqual([]);
    expect([...documented].filter((r) => !served.has(r)).sort()).toEqual([]);
  });

  it('documents, for every /v1 route, exactly the query parameters the route accepts (the keys of its declared query schema)', () => {
    const declared: string[] = [];
    const documented: string[] = [];
    for (const r of registeredRoutes(harness.svc.app)) {
      const m = r.method.toLowerCase();
      if (!METHODS.includes(m) || !r.url.startsWith('/v1/')) continue;
      const p = r.url.replace(/\/$/, '').replace(/:([A-Za-z_]+)/g, '{$1}');
      const op = (spec.paths as Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>)[p]?.[m];
      declared.push(`${m} ${p}: ${[...r.query].sort().join(',')}`);
      documented.push(`${m} ${p}: ${(op?.parameters ?? []).filter((q) => q.in === 'query').map((q) => q.name).sort().join(',')}`);
    }
    expect(declared.length).toBeGreaterThan(30);
    expect(documented).toEqual(declared);
  });

  it('documents the responses the HTTP layer sends on every route: 405 (with Allow), 408, 421, 431, 414 where the path has parameters, 403 on state-changing methods (a foreign Origin), and a 400 on every route (the query of a /v1 route is checked; any route refuses an HTTP/1.1 request without Host, a bad escape in the path, a malformed request)', () => {
    const missing: string[] = [];
    for (const [p, item] of Object.entries(spec.paths as Record<string, Record<string, { responses: Record<string, { $ref?: string }> }>>)) {
      for (const [m, op] of Object.entries(item)) {
        if (!METHODS.includes(m)) continue;
        if (!op.responses['400']) missing.push(`${m} ${p} 400`);
        const want: [string, string][] = [['405', 'MethodNotAllowed'], ['408', 'RequestTimeout'], ['421', 'HostNotAllowed'], ['431', 'HeadersTooLarge'], ...(p.includes('{') ? [['414', 'UriTooLong'] as [string, string]] : []), ...(['post', 'put', 'patch', 'delete'].includes(m) ? [['403', 'OriginNotAllowed'] as [string, string]] : [])];
        for (const [status, name] of want) if (op.responses[status]?.$ref !== `#/components/responses/${name}`) missing.push(`${m} ${p} ${status}`);
      }
    }
    expect(missing).toEqual([]);
    expect(spec.components.responses.MethodNotAllowed.headers.Allow).toBeDefined();
  });

  it('documents every SSE event type with exactly the schema derived from the zod events', () => {
    const generated = turnEventComponents();
    expect(Object.keys(generated)).toHaveLength(TurnEvent.options.length);
    for (const [name, schema] of Object.entries(generated)) {
      expect(spec.components.schemas[name], name).toEqual(schema);
    }
    const types = TurnEvent.options.map((o) => o.shape.type.value as string);
    expect(spec.components.schemas.TurnSseItem.properties.event.enum).toEqual(types);
    expect(Object.keys(spec.components.schemas.TurnEvent.discriminator.mapping)).toEqual(types);
    expect(spec.components.schemas.TurnEvent.oneOf.map((r: { $ref: string }) => r.$ref.split('/').pop())).toEqual(types.map(eventComponentName));
  });

  it('describes every error code a turn can fail with, the same on the turn and on turn.failed', () => {
    const turnError = spec.components.schemas.Turn.properties.error.oneOf.find((o: { type: string }) => o.type === 'object');
    expect(turnError.properties.code.description).toBe(TURN_ERROR_CODE_DESCRIPTION);
    expect(turnError.properties.message.description).toBe(TURN_ERROR_MESSAGE_DESCRIPTION);
    expect(spec.components.schemas.TurnFailedEvent.properties.error.properties.code.description).toBe(TURN_ERROR_CODE_DESCRIPTION);
    expect(spec.components.schemas.TurnFailedEvent.properties.error.properties.message.description).toBe(TURN_ERROR_MESSAGE_DESCRIPTION);
    expect(TURN_ERROR_MESSAGE_DESCRIPTION).toContain(`at most ${PROVIDER_TEXT_MAX_CHARS} characters`);
    // The codes the source fails a turn with: model errors, and the failures the loop and the turn runner write.
    const codes = new Set<string>();
    for (const dir of ['src/model', 'src/runtime', 'src/runtime/policies', 'src/turns']) {
      for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
        const text = readFileSync(path.join(dir, f), 'utf8');
        for (const re of [/new ModelError\(\s*'([a-z_]+)'/g, /error: \{ code: '([a-z_]+)'/g, /fail\(\{ code: '([a-z_]+)'/g, /error \?\? \{ code: '([a-z_]+)'/g]) {
          for (const m of text.matchAll(re)) codes.add(m[1]);
        }
      }
    }
    // `failed`: the fallback when a failed result carries no error, which no path produces.
    codes.delete('failed');
    for (const code of ['connection_error', 'stream_interrupted', 'model_timeout', 'not_event_stream', 'internal_error', 'resume_failed', 'crash_loop']) expect(codes).toContain(code);
    const undocumented = [...codes].filter((c) => !TURN_ERROR_CODE_DESCRIPTION.includes(`\`${c}\``));
    expect(undocumented).toEqual([]);
    for (const code of ['max_output_tokens', 'empty_response', 'max_steps', 'http_<status>', 'invalid_api_key', 'model_not_found']) expect(TURN_ERROR_CODE_DESCRIPTION).toContain(`\`${code}\``);
  });
});

describe('request schemas in openapi.yaml agree with the zod schemas the routes use', () => {
  const bodies: unknown[] = [
    { input: 'hi' },
    { input: [{ role: 'user', content: 'x' }, { role: 'developer', content: 'y' }] },
    { input: 'hi', agent_id: 'a_b-1', tools: ['todo', 'web'], max_steps: 100, metadata: { a: 1 }, brain: true, cancel_on_disconnect: true, instructions: 'i', model: 'm', previous_turn_id: 'p' },
    {},
    { input: '' },
    { input: '   ' },
    { input: '\n\t' },
    { input: [{ role: 'user', content: ' ' }, { role: 'system', content: '' }] },
    { input: [{ role: 'system', content: ' ' }, { role: 'user', content: 'x' }] },
    { input: [] },
    { input: [{ role: 'tool', content: 'x' }] },
    { input: [{ role: 'user', content: 'x', extra: 1 }] },
    { input: 'hi', unknown: true },
    { input: 'hi', agent_id: 'bad id' },
    { input: 'hi', agent_id: 'x'.repeat(65) },
    { input: 'hi', tools: ['shell'] },
    { input: 'hi', tools: ['todo', 'todo'] },
    // Every family at once (TOOL_FAMILIES): valid, so the spec's maxItems must allow it.
    { input: 'hi', tools: [...TOOL_FAMILIES] },
    { input: 'hi', tools: [...TOOL_FAMILIES, 'todo'] },
    { input: 'hi', max_steps: 0 },
    { input: 'hi', max_steps: 1.5 },
    { input: 'hi', metadata: 'no' },
    { input: 'hi', metadata: { ['k'.repeat(64)]: 1 } },
    { input: 'hi', metadata: { ['k'.repeat(65)]: 1 } },
    { input: 'hi', brain: 'yes' },
    { input: 42 },
    { input: '\u0000' },
    { input: '\u200b\u0007 ' },
    { input: '\u0000x' },
    { input: 'hi', multitask_strategy: 'enqueue' },
    { input: 'hi', multitask_strategy: 'reject', previous_turn_id: 'p' },
    // null for an optional field is the field left out; for `input` (required) it is refused.
    { input: 'hi', instructions: null, model: null, model_api: null, agent_id: null, tools: null, max_steps: null, previous_turn_id: null, metadata: null, brain: null, skills: null, webhook: null, approvals: null, cancel_on_disconnect: null },
    { input: 'hi', multitask_strategy: null },
    { input: 'hi', multitask_strategy: 'enqueue', previous_turn_id: null },
    { input: null },
  ];
  it.each(bodies.map((b) => [JSON.stringify(b), b]))('CreateTurnRequest %s', (_name, body) => {
    expect(validateComponent('CreateTurnRequest', body).length === 0).toBe(CreateTurnBody.safeParse(body).success);
  });
  it('lists exactly the tool families of TOOL_FAMILIES, and lets tools hold each once', () => {
    expect(spec.components.schemas.ToolFamily.enum).toEqual([...TOOL_FAMILIES]);
    for (const name of ['CreateTurnRequest', 'ToolsPreviewRequest', 'CreateScheduleRequest', 'UpdateScheduleRequest']) {
      expect(spec.components.schemas[name].properties.tools.maxItems, name).toBe(TOOL_FAMILIES.length);
    }
  });
  it.each([{}, { tools: ['todo'] }, { tools: [...TOOL_FAMILIES] }, { agent_id: '!' }, { tools: ['x'] }, { extra: 1 }, { brain: true, model: 'm' }, { agent_id: null, tools: null, model: null, brain: null }].map((b) => [JSON.stringify(b), b]))(
    'ToolsPreviewRequest %s',
    (_name, body) => {
      expect(validateComponent('ToolsPreviewRequest', body).length === 0).toBe(PreviewToolsBody.safeParse(body).success);
    },
  );
});

describe('real responses validate against openapi.yaml', () => {
  it('turn endpoints: 202, 200 (wait, get, list, cancel), and every streamed event', async () => {
    harness.model.push(todoThenAnswer, todoThenAnswer);
    const stream = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: 'check the spec', tools: ['todo'] } });
    expect(stream.events.length).toBeGreaterThan(4);
    const seenTypes = new Set<string>();
    for (const ev of stream.events) {
      seenTypes.add(ev.event!);
      expect(validateComponent('TurnSseItem', { id: ev.id, event: ev.event, data: ev.data })).toEqual([]);
      expect(validateComponent('TurnEvent', ev.json), ev.event).toEqual([]);
      expect(validateComponent(eventComponentName(ev.event!), ev.json), ev.event).toEqual([]);
    }
    expect(seenTypes).toEqual(new Set(['turn.started', 'tool.started', 'presentation', 'tool.completed', 'message.delta', 'message.completed', 'turn.completed']));
    const id = stream.headers.get('x-turn-id')!;

    harness.model.push({ output: [message('second')] });
    const accepted = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'again' });
    expect(validateResponse('/v1/turns', 'post', 202, accepted.body)).toEqual([]);
    harness.model.push({ output: [message('third')] });
    const waited = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'wait', metadata: { a: 1 } });
    expect(validateResponse('/v1/turns', 'post', 200, waited.body)).toEqual([]);
    expect(validateResponse('/v1/turns/{id}', 'get', 200, (await api(harness.svc.url, 'GET', `/v1/turns/${id}`)).body)).toEqual([]);
    expect(validateResponse('/v1/turns', 'get', 200, (await api(harness.svc.url, 'GET', '/v1/turns?limit=2')).body)).toEqual([]);
    expect(validateResponse('/v1/turns/{id}/cancel', 'post', 200, (await api(harness.svc.url, 'POST', `/v1/turns/${id}/cancel`)).body)).toEqual([]);
  });

  it('a failed and a cancelled turn stream events that validate', async () => {
    harness.model.push({ streamError: { code: 'server_error', message: 'boom' } });
    const failed = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: 'fail' } });
    expect(failed.events[failed.events.length - 1].event).toBe('turn.failed');
    harness.model.push({ output: [functionCall('command', { command: 'sleep 20' })] });
    const created = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'sleep', tools: ['computer'] });
    await readSse(`${harness.svc.url}/v1/turns/${created.body.id}/events`, { stopWhen: (e) => e.event === 'tool.started' });
    await api(harness.svc.url, 'POST', `/v1/turns/${created.body.id}/cancel`);
    const cancelled = await readSse(`${harness.svc.url}/v1/turns/${created.body.id}/events`);
    expect(cancelled.events[cancelled.events.length - 1].event).toBe('turn.cancelled');
    for (const ev of [...failed.events, ...cancelled.events]) expect(validateComponent('TurnEvent', ev.json), ev.event).toEqual([]);
  });

  it('serves the document at /openapi.yaml and the reference page at /docs', async () => {
    const doc = await fetch(`${harness.svc.url}/openapi.yaml`);
    expect(doc.status).toBe(200);
    expect(doc.headers.get('content-type')).toMatch(/yaml/);
    expect(await doc.text()).toContain('/v1/turns/{id}/events');
    const page = await fetch(`${harness.svc.url}/docs/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
  });

  it('answers GET /docs, not followed, with a 301 to /docs/ whose body says where the page is; followed, it is the page', async () => {
    for (const url of ['/docs', '/docs?x=1', '//docs']) {
      const moved = await fetch(`${harness.svc.url}${url}`, { redirect: 'manual' });
      expect(moved.status, url).toBe(301);
      expect(moved.headers.get('location'), url).toBe('/docs/');
      expect(moved.headers.get('content-type'), url).toBe('text/plain; charset=utf-8');
      expect(await moved.text(), url).toBe(
        'The API reference page is at /docs/ (with the slash at the end): open that, or follow this redirect (curl -L). The OpenAPI document it renders is at /openapi.yaml.\n',
      );
    }
    const followed = await fetch(`${harness.svc.url}/docs`);
    expect(followed.status).toBe(200);
    expect(followed.url).toBe(`${harness.svc.url}/docs/`);
    expect(await followed.text()).toContain('js/scalar.js');
    // The page's script and document, which it loads by relative URLs from /docs/.
    expect((await fetch(`${harness.svc.url}/docs/js/scalar.js`)).status).toBe(200);
    expect((await fetch(`${harness.svc.url}/docs/openapi.json`)).status).toBe(200);
  });

  it('tools preview, health, readiness', async () => {
    const preview = await api(harness.svc.url, 'POST', '/v1/tools/preview', { tools: ['todo', 'computer'] });
    expect(preview.status).toBe(200);
    expect(preview.body.tools).toContain('todo');
    expect(validateResponse('/v1/tools/preview', 'post', 200, preview.body)).toEqual([]);
    expect(validateResponse('/healthz', 'get', 200, (await api(harness.svc.url, 'GET', '/healthz')).body)).toEqual([]);
    expect(validateResponse('/readyz', 'get', 200, (await api(harness.svc.url, 'GET', '/readyz')).body)).toEqual([]);
  });

  it('every error response is the documented envelope', async () => {
    const cases: [string, string, string, unknown, number, Record<string, string>?][] = [
      ['/v1/turns', 'POST', '/v1/turns', { input: 'x', nope: 1 }, 400],
      ['/v1/turns', 'POST', '/v1/turns', '{bad json', 400],
      ['/v1/turns', 'POST', '/v1/turns', { input: 'x'.repeat(4000) }, 413],
      ['/v1/turns/{id}', 'GET', '/v1/turns/does-not-exist', undefined, 404],
      ['/v1/turns/{id}/events', 'GET', '/v1/turns/does-not-exist/events', undefined, 404],
      ['/v1/turns/{id}/cancel', 'POST', '/v1/turns/does-not-exist/cancel', undefined, 404],
      ['/v1/turns', 'GET', '/v1/turns?limit=1000', undefined, 400],
      ['/v1/tools/preview', 'POST', '/v1/tools/preview', { tools: ['nope'] }, 400],
    ];
    for (const [p, method, url, body, status] of cases) {
      const r = await api(harness.svc.url, method, url, body);
      expect(r.status, url).toBe(status);
      expect(validateResponse(p, method, status, r.body), url).toEqual([]);
    }
    const res = await fetch(`${harness.svc.url}/v1/turns`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' });
    expect(res.status).toBe(415);
    expect(validateResponse('/v1/turns', 'post', 415, await res.json())).toEqual([]);
    const key = { 'idempotency-key': 'spec-key' };
    harness.model.push({ output: [message('k')] });
    await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'one' }, key);
    const conflict = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'two' }, key);
    expect(conflict.status).toBe(409);
    expect(validateResponse('/v1/turns', 'post', 409, conflict.body)).toEqual([]);
  });
});
