/**
 * One idempotency behaviour on every create route (turns, schedules, workflows): the same
 * Idempotency-Key with the same body answers as the first request did — same status, same
 * resource, `Idempotent-Replayed: true` — and creates nothing; with another body it is 409
 * `idempotency_key_reused` naming the existing resource.
 */
import { describe, expect, it } from 'vitest';
import { message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from './support/service.js';

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
