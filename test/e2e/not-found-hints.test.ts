/**
 * Every 404 for an unknown resource says what to do: check the id (name, slug) and which GET lists
 * the existing ones, with details `{resource, id, list}` — also the resources with codes of their
 * own (schedules, skills, brain pages). Following the hint works: the `list` GET answers 200. An
 * attachment has no list route; its 404 points at the turn's events. The id a 404 repeats is quoted
 * in its message and its unsafe characters escaped (message and details). Real service, real routes.
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
      message: `turn ${turn.body.id} has no attachment "att_nope": check the id; the turn's presentation events (GET /v1/turns/${turn.body.id}/events) carry the URL of each attachment it made`,
      details: { resource: 'attachment', id: 'att_nope', turn_id: turn.body.id, attachment_id: 'att_nope' },
    });
    expect(validateResponse('/v1/turns/{id}/attachments/{attachment_id}', 'get', 404, r.body)).toEqual([]);
  });

  it('turns, workflows and jobs keep not_found with the same hint and details', async () => {
    for (const [kind, list] of [['turn', '/v1/turns'], ['workflow', '/v1/workflows'], ['job', '/v1/jobs']]) {
      const r = await api(harness.svc.url, 'GET', `${list}/nope`);
      expect(r.status).toBe(404);
      expect(r.body.error).toEqual({ code: 'not_found', message: `${kind} "nope" not found: check the id; GET ${list} lists the ${kind}s there are`, details: { resource: kind, id: 'nope', list: `GET ${list}` } });
    }
  });

  it('an id from the path with an escape sequence, a line break or a bidi control is quoted in the message and escaped in details', async () => {
    // ESC [31m, a line feed, U+202E (right-to-left override), a quote and a backslash.
    const raw = 'a\u001b[31mb\nc\u202Ed"e\\f';
    const shown = '"a\\u001B[31mb\\u000Ac\\u202Ed\\"e\\\\f"';
    const escaped = 'a\\u001B[31mb\\u000Ac\\u202Ed"e\\f';
    const id = encodeURIComponent(raw);
    const cases: [string, string, unknown, string, string][] = [
      ['GET', `/v1/turns/${id}`, undefined, 'not_found', `turn ${shown} not found: `],
      ['GET', `/v1/turns/${id}/events`, undefined, 'not_found', `turn ${shown} not found: `],
      ['POST', `/v1/turns/${id}/messages`, { content: 'hi' }, 'not_found', `turn ${shown} not found: `],
      ['GET', `/v1/turns/${id}/attachments/att_x`, undefined, 'not_found', `turn ${shown} not found: `],
      ['GET', `/v1/workflows/${id}`, undefined, 'not_found', `workflow ${shown} not found: `],
      ['GET', `/v1/jobs/${id}`, undefined, 'not_found', `job ${shown} not found: `],
      ['GET', `/v1/schedules/${id}`, undefined, 'schedule_not_found', `no schedule with id ${shown}: `],
    ];
    for (const [method, path, body, code, start] of cases) {
      const r = await api(harness.svc.url, method, path, body);
      expect([path, r.status, r.body.error.code]).toEqual([path, 404, code]);
      expect(r.body.error.message.startsWith(start), `${path}: ${r.body.error.message}`).toBe(true);
      expect(r.body.error.details.id, path).toBe(escaped);
      expect(r.body.error.message, path).not.toMatch(/[\u0000-\u001f\u202e]/);
    }
    // The attachment id of a turn that exists, a previous_turn_id and an approval's call_id from the body, likewise.
    harness.model.push({ output: [message('done')] });
    const turn = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
    const att = await api(harness.svc.url, 'GET', `/v1/turns/${turn.body.id}/attachments/${id}`);
    expect(att.status).toBe(404);
    expect(att.body.error.message.startsWith(`turn ${turn.body.id} has no attachment ${shown}: `)).toBe(true);
    expect(att.body.error.details).toMatchObject({ id: escaped, attachment_id: escaped });
    const prev = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'hi', previous_turn_id: raw });
    expect(prev.status).toBe(404);
    expect(prev.body.error.message.startsWith(`previous turn ${shown} not found: `)).toBe(true);
    expect(prev.body.error.details).toEqual({ previous_turn_id: escaped });
    const approval = await api(harness.svc.url, 'POST', `/v1/turns/${turn.body.id}/approvals`, { call_id: raw, decision: 'approve' });
    expect([approval.status, approval.body.error.code]).toEqual([404, 'approval_not_found']);
    expect(approval.body.error.message.startsWith(`turn ${turn.body.id} has no approval for call ${shown}; `)).toBe(true);
    expect(approval.body.error.details).toEqual({ turn_id: turn.body.id, call_id: escaped });
  });
});
