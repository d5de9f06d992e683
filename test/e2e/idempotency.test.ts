/**
 * One idempotency behaviour on every create route (turns, schedules, workflows): the same
 * Idempotency-Key with the same body answers as the first request did — same status, same
 * resource, `Idempotent-Replayed: true` — and creates nothing; with another body it is 409
 * `idempotency_key_reused` naming the existing resource.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { uuidv7 } from 'uuidv7';
import { requestHash } from '../../src/turns/turn-input.js';
import { message } from '../support/scripted-responses-server.js';
import { api, startTestService, useScriptedService } from './support/service.js';

const harness = useScriptedService();
const SCHEMA = { type: 'object', properties: { v: { type: 'string' } }, required: ['v'], additionalProperties: false };

interface Route {
  resource: string;
  path: string;
  status: number;
  body: (text: string) => Record<string, unknown>;
  list: string;
}
const ROUTES: Route[] = [
  { resource: 'turn', path: '/v1/turns', status: 202, body: (text) => ({ input: text, agent_id: 'idem-turn' }), list: '/v1/turns?agent_id=idem-turn&limit=100' },
  {
    resource: 'schedule',
    path: '/v1/schedules',
    status: 201,
    body: (text) => ({ name: text, when: { cron: '0 9 * * *', timezone: 'UTC' }, input: text, agent_id: 'idem-schedule' }),
    list: '/v1/schedules?agent_id=idem-schedule',
  },
  {
    resource: 'workflow',
    path: '/v1/workflows',
    status: 201,
    body: (text) => ({ title: text, agent_id: 'idem-workflow', tasks: [{ label: 'a', prompt: text, result_schema: SCHEMA }] }),
    list: '/v1/workflows?agent_id=idem-workflow',
  },
];

/** Scripted answers for whatever turns the creates start (turns, workflow tasks). */
function feedModel(n: number): void {
  for (let i = 0; i < n; i++) harness.model.push(() => ({ output: [message('ok')] }));
}

describe.each(ROUTES)('POST $path', (route) => {
  it('replays the same key and body with the same status and resource, marked Idempotent-Replayed', async () => {
    feedModel(4);
    const key = { 'idempotency-key': `same-${route.resource}` };
    const first = await api(harness.svc.url, 'POST', route.path, route.body('first'), key);
    expect(first.status, JSON.stringify(first.body)).toBe(route.status);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await api(harness.svc.url, 'POST', route.path, route.body('first'), key);
    expect(again.status).toBe(route.status);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const listed = await api(harness.svc.url, 'GET', route.list);
    expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual([first.body.id]);
  });

  it('answers the same key with another body 409 idempotency_key_reused, naming the first resource', async () => {
    feedModel(4);
    const key = { 'idempotency-key': `other-${route.resource}` };
    const first = await api(harness.svc.url, 'POST', route.path, route.body('one'), key);
    expect(first.status).toBe(route.status);
    const other = await api(harness.svc.url, 'POST', route.path, route.body('two'), key);
    expect(other.status).toBe(409);
    expect(other.body.error).toEqual({
      code: 'idempotency_key_reused',
      message: `this Idempotency-Key was already used with a different request body (${route.resource} ${first.body.id}); send a new key for a new request`,
      details: { [`${route.resource}_id`]: first.body.id },
    });
  });
});

describe('POST /v1/workflows with one key sent twice at once', () => {
  it('creates one workflow and replays it to the other request', async () => {
    feedModel(4);
    const key = { 'idempotency-key': 'racing-workflow' };
    const body = { title: 'race', agent_id: 'idem-race', tasks: [{ label: 'a', prompt: 'p', result_schema: SCHEMA }] };
    const [a, b] = await Promise.all([api(harness.svc.url, 'POST', '/v1/workflows', body, key), api(harness.svc.url, 'POST', '/v1/workflows', body, key)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).toBe(b.body.id);
    expect([a.headers.get('idempotent-replayed'), b.headers.get('idempotent-replayed')].sort()).toEqual(['true', null].sort());
    const listed = await api(harness.svc.url, 'GET', '/v1/workflows?agent_id=idem-race');
    expect(listed.body.data).toHaveLength(1);
  });
});

describe('POST /v1/turns compares a retry with the first request after the defaults are filled in', () => {
  it('replays a retry that spells out the defaults the first one left out, and refuses one that changes them', async () => {
    feedModel(2);
    const key = { 'idempotency-key': 'order-42' };
    const first = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'Hello' }, key);
    expect(first.status).toBe(202);
    // DEFAULT_TOOLS is todo,clarify; MODEL is scripted-model; MAX_STEPS 20; MODEL_API responses.
    for (const spelled of [
      { input: 'Hello', agent_id: 'default' },
      { input: 'Hello', tools: ['todo', 'clarify'] },
      { input: 'Hello', agent_id: 'default', tools: ['todo', 'clarify'], model: 'scripted-model', model_api: 'responses', max_steps: 20, brain: false },
    ]) {
      const again = await api(harness.svc.url, 'POST', '/v1/turns', spelled, key);
      expect(again.status, JSON.stringify(spelled)).toBe(202);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.id).toBe(first.body.id);
    }
    for (const changed of [{ input: 'Hello', tools: ['todo'] }, { input: 'Hello', max_steps: 3 }, { input: 'Hello', agent_id: 'someone' }]) {
      const other = await api(harness.svc.url, 'POST', '/v1/turns', changed, key);
      expect(other.status, JSON.stringify(changed)).toBe(409);
      expect(other.body.error.code).toBe('idempotency_key_reused');
    }
  });

  it('compares tools as a set of families: another order replays, another set is another request', async () => {
    feedModel(2);
    const key = { 'idempotency-key': 'tools-as-set' };
    const first = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'Hello', agent_id: 'idem-set', tools: ['todo', 'web', 'clarify'] }, key);
    expect(first.status).toBe(202);
    const reordered = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'Hello', agent_id: 'idem-set', tools: ['clarify', 'todo', 'web'] }, key);
    expect(reordered.status, JSON.stringify(reordered.body)).toBe(202);
    expect(reordered.headers.get('idempotent-replayed')).toBe('true');
    expect(reordered.body.id).toBe(first.body.id);
    const fewer = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'Hello', agent_id: 'idem-set', tools: ['clarify', 'todo'] }, key);
    expect(fewer.status).toBe(409);
    expect(fewer.body.error.code).toBe('idempotency_key_reused');
    // Left out, tools is DEFAULT_TOOLS (todo,clarify) — in any order.
    const defaults = { 'idempotency-key': 'tools-default-set' };
    const byDefault = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'Hi', agent_id: 'idem-set' }, defaults);
    const spelled = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'Hi', agent_id: 'idem-set', tools: ['clarify', 'todo'] }, defaults);
    expect(spelled.status, JSON.stringify(spelled.body)).toBe(202);
    expect(spelled.body.id).toBe(byDefault.body.id);
    expect((await api(harness.svc.url, 'GET', '/v1/turns?agent_id=idem-set&limit=100')).body.data).toHaveLength(2);
  });

  it('still replays the very same body under a key stored with tools in the order sent (how keys were bound before tools compared as a set)', async () => {
    feedModel(1);
    const body = { input: 'Hello', agent_id: 'idem-set-legacy', tools: ['web', 'todo'] as ('web' | 'todo')[] };
    const scope = { kind: 'main', origin: { type: 'api' } };
    const withDefaults = { ...body, model: 'scripted-model', model_api: 'responses', max_steps: 20, brain: false, multitask_strategy: 'reject' };
    const id = uuidv7();
    await harness.svc.services.turnStore.insert({
      id, agent_id: body.agent_id, kind: 'main', origin: { type: 'api' }, model: 'scripted-model', created_at: new Date().toISOString(), metadata: null,
      request: { ...body, model: 'scripted-model' }, idempotency_key: 'api:set-legacy-key',
      request_hash: `${requestHash({ ...scope, input: withDefaults })} ${requestHash({ ...scope, input: body })}`,
    });
    const again = await api(harness.svc.url, 'POST', '/v1/turns', body, { 'idempotency-key': 'set-legacy-key' });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(id);
  });

  it('still replays a key stored bound to the body as sent (how keys were bound before defaults were filled in)', async () => {
    feedModel(1);
    const body = { input: 'Hello', agent_id: 'idem-legacy' };
    const id = uuidv7();
    await harness.svc.services.turnStore.insert({
      id, agent_id: body.agent_id, kind: 'main', origin: { type: 'api' }, model: 'scripted-model', created_at: new Date().toISOString(), metadata: null,
      request: { ...body, model: 'scripted-model' }, idempotency_key: 'api:legacy-key', request_hash: requestHash({ input: body, kind: 'main', origin: { type: 'api' } }),
    });
    const again = await api(harness.svc.url, 'POST', '/v1/turns', body, { 'idempotency-key': 'legacy-key' });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(id);
    expect((await api(harness.svc.url, 'POST', '/v1/turns', { ...body, input: 'Bye' }, { 'idempotency-key': 'legacy-key' })).status).toBe(409);
  });

  it('after a restart with another DEFAULT_TOOLS, the body as sent still replays; the new default spelled out is another request', async () => {
    feedModel(1);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'idem-restart-'));
    const key = { 'idempotency-key': 'restart-key' };
    const body = { input: 'Hello', agent_id: 'idem-restart' };
    const before = await startTestService({ modelBaseURL: harness.model.baseURL, dataDir, env: { DEFAULT_TOOLS: 'todo' } });
    const first = await api(before.url, 'POST', '/v1/turns?wait=true', body, key);
    expect(first.status).toBe(200);
    await before.close({ keepData: true });
    const after = await startTestService({ modelBaseURL: harness.model.baseURL, dataDir });
    try {
      const same = await api(after.url, 'POST', '/v1/turns', body, key);
      expect(same.status).toBe(202);
      expect(same.headers.get('idempotent-replayed')).toBe('true');
      expect(same.body.id).toBe(first.body.id);
      expect((await api(after.url, 'POST', '/v1/turns', { ...body, tools: ['todo'] }, key)).body.id).toBe(first.body.id);
      const newDefault = await api(after.url, 'POST', '/v1/turns', { ...body, tools: ['todo', 'clarify'] }, key);
      expect(newDefault.status).toBe(409);
      expect(newDefault.body.error.code).toBe('idempotency_key_reused');
    } finally {
      await after.close();
    }
  });

  it('a replay answers with the turn as it is now, not as it was when first created', async () => {
    feedModel(1);
    const key = { 'idempotency-key': 'replay-now' };
    const first = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'Hi', agent_id: 'idem-now' }, key);
    expect(first.status).toBe(202);
    const done = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'Hi', agent_id: 'idem-now' }, key);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: first.body.id, status: 'completed' });
    const again = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'Hi', agent_id: 'idem-now' }, key);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toMatchObject({ id: first.body.id, status: 'completed' });
  });
});
