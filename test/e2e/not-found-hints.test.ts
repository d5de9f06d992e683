/**
 * Every 404 for an unknown resource says what to do: check the id (name, slug) and which GET lists
 * the existing ones, with details `{resource, id, list}` — also the resources with codes of their
 * own (schedules, skills, brain pages). Following the hint works: the `list` GET answers 200. An
 * attachment has no list route; its 404 points at the turn's events. Real service, real routes.
 */
import { describe, expect, it } from 'vitest';
import { message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from './support/service.js';
import { validateResponse } from './support/spec.js';

const harness = useScriptedService();

/** The 404 at `path` has `code`, a message ending in the hint to check `key` and GET `list`, and details `{resource, id, list, ...extra}`. */
async function expectHint(method: string, path: string, spec: [string, string], code: string, want: { resource: string; id: string; list: string; key: string; extra?: Record<string, string> }) {
  const body = method === 'PATCH' ? { name: 'x' } : undefined;
  const r = await api(harness.svc.url, method, path, body);
  expect(r.status, `${method} ${path}`).toBe(404);
  expect(r.body.error.code).toBe(code);
  expect(r.body.error.message).toMatch(new RegExp(`: check the ${want.key}; GET ${want.list.replace(/[/.]/g, '\\$&')} lists the \\w+ there are$`));
  expect(r.body.error.details).toEqual({ resource: want.resource, id: want.id, list: `GET ${want.list}`, ...want.extra });
  expect(validateResponse(spec[0], spec[1], 404, r.body)).toEqual([]);
  expect((await api(harness.svc.url, 'GET', want.list)).status, want.list).toBe(200);
}

describe('404s for unknown resources say what to do', () => {
  it('schedules: GET, PATCH, DELETE and runs of an unknown id → schedule_not_found with the hint and GET /v1/schedules', async () => {
    const want = { resource: 'schedule', id: 'nope', list: '/v1/schedules', key: 'id' };
    await expectHint('GET', '/v1/schedules/nope', ['/v1/schedules/{id}', 'get'], 'schedule_not_found', want);
    await expectHint('PATCH', '/v1/schedules/nope', ['/v1/schedules/{id}', 'patch'], 'schedule_not_found', want);
    await expectHint('DELETE', '/v1/schedules/nope', ['/v1/schedules/{id}', 'delete'], 'schedule_not_found', want);
    await expectHint('GET', '/v1/schedules/nope/runs', ['/v1/schedules/{id}/runs', 'get'], 'schedule_not_found', want);
    const r = await api(harness.svc.url, 'GET', '/v1/schedules/nope');
    expect(r.body.error.message).toMatch(/^no schedule with id "nope": /);
  });

  it('skills: GET and DELETE of a skill not installed → skill_not_found with the hint and GET /v1/skills', async () => {
    const want = { resource: 'skill', id: 'no-such-skill', list: '/v1/skills', key: 'name', extra: { name: 'no-such-skill' } };
    await expectHint('GET', '/v1/skills/no-such-skill', ['/v1/skills/{name}', 'get'], 'skill_not_found', want);
    await expectHint('DELETE', '/v1/skills/no-such-skill', ['/v1/skills/{name}', 'delete'], 'skill_not_found', want);
  });

  it('brain pages: GET and DELETE of an unknown slug → page_not_found with the hint and the GET of the agent\'s pages', async () => {
    const want = { resource: 'brain_page', id: 'runbook', list: '/v1/agents/ops/brain/pages', key: 'slug', extra: { agent_id: 'ops', slug: 'runbook' } };
    await expectHint('GET', '/v1/agents/ops/brain/pages/runbook', ['/v1/agents/{agent_id}/brain/pages/{slug}', 'get'], 'page_not_found', want);
    await expectHint('DELETE', '/v1/agents/ops/brain/pages/runbook', ['/v1/agents/{agent_id}/brain/pages/{slug}', 'delete'], 'page_not_found', want);
  });

  it('an unknown attachment of a known turn → attachment_not_found pointing at the turn\'s events (no route lists attachments)', async () => {
    harness.model.push({ output: [message('done')] });
    const turn = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
    expect(turn.status).toBe(200);
    const r = await api(harness.svc.url, 'GET', `/v1/turns/${turn.body.id}/attachments/att_nope`);
    expect(r.status).toBe(404);
    expect(r.body.error).toEqual({
      code: 'attachment_not_found',
      message: `turn ${turn.body.id} has no attachment att_nope: check the id; the turn's presentation events (GET /v1/turns/${turn.body.id}/events) carry the URL of each attachment it made`,
      details: { resource: 'attachment', id: 'att_nope', turn_id: turn.body.id, attachment_id: 'att_nope' },
    });
    expect(validateResponse('/v1/turns/{id}/attachments/{attachment_id}', 'get', 404, r.body)).toEqual([]);
  });

  it('turns, workflows and jobs keep not_found with the same hint and details', async () => {
    for (const [kind, list] of [['turn', '/v1/turns'], ['workflow', '/v1/workflows'], ['job', '/v1/jobs']]) {
      const r = await api(harness.svc.url, 'GET', `${list}/nope`);
      expect(r.status).toBe(404);
      expect(r.body.error).toEqual({ code: 'not_found', message: `${kind} nope not found: check the id; GET ${list} lists the ${kind}s there are`, details: { resource: kind, id: 'nope', list: `GET ${list}` } });
    }
  });
});
