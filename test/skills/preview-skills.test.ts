/**
 * POST /v1/tools/preview with `skills`: the tool set a turn with that skill list (instead of the
 * agent's enabled list) would get — `skill_view` from the skills family, named in `families` as the
 * tool families are — and 400 unknown_skill for a name that is not installed, as on POST /v1/turns.
 * Real server, real skill archives.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { skillMd, tarGz } from '../support/archives.js';
import { validateResponse } from '../e2e/support/spec.js';
import { api, startTestService, type TestService } from '../e2e/support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
  const res = await fetch(`${svc.url}/v1/skills/notes`, { method: 'PUT', headers: { 'content-type': 'application/gzip' }, body: new Uint8Array(tarGz([{ name: 'SKILL.md', data: skillMd('notes', 'Take notes') }])) });
  expect(res.status).toBe(201);
});
afterAll(async () => svc.close());

it('previews the tools of a turn with the given skills instead of the agent\'s list', async () => {
  // The agent has no skills enabled: no skill_view.
  const plain = await api(svc.url, 'POST', '/v1/tools/preview', { tools: ['todo'] });
  expect(plain.status).toBe(200);
  expect(plain.body.tools).not.toContain('skill_view');
  expect(plain.body.families).toEqual(['todo']);
  const withSkills = await api(svc.url, 'POST', '/v1/tools/preview', { tools: ['todo'], skills: ['notes'] });
  expect(withSkills.status).toBe(200);
  expect(withSkills.body.tools).toContain('skill_view');
  expect(withSkills.body.families).toEqual(['todo', 'skills']);
  expect(withSkills.body.unavailable.map((u: { family: string }) => u.family)).not.toContain('skills');
  expect(validateResponse('/v1/tools/preview', 'post', 200, withSkills.body)).toEqual([]);
  // `[]` = none, also when the agent has skills enabled.
  expect((await api(svc.url, 'PUT', '/v1/agents/a1/skills', { enabled: ['notes'] })).status).toBe(200);
  const enabled = await api(svc.url, 'POST', '/v1/tools/preview', { agent_id: 'a1', tools: ['todo'] });
  expect(enabled.body.tools).toContain('skill_view');
  expect(enabled.body.families).toEqual(['todo', 'skills']);
  const none = await api(svc.url, 'POST', '/v1/tools/preview', { agent_id: 'a1', tools: ['todo'], skills: [] });
  expect(none.body.tools).not.toContain('skill_view');
  expect(none.body.families).toEqual(['todo']);
});

it('names brain in families with brain: true, as its recall tool is in tools, before skills', async () => {
  const r = await api(svc.url, 'POST', '/v1/tools/preview', { tools: ['clarify', 'todo'], brain: true, skills: ['notes'] });
  expect(r.status).toBe(200);
  expect(r.body.tools).toEqual(expect.arrayContaining(['recall', 'get_page', 'skill_view', 'todo', 'clarify']));
  expect(r.body.families).toEqual(['clarify', 'todo', 'brain', 'skills']);
  expect(validateResponse('/v1/tools/preview', 'post', 200, r.body)).toEqual([]);
});

it('refuses a skill that is not installed with 400 unknown_skill naming it', async () => {
  const bad = await api(svc.url, 'POST', '/v1/tools/preview', { skills: ['notes', 'nope'] });
  expect(bad.status).toBe(400);
  expect(bad.body.error).toMatchObject({ code: 'unknown_skill', details: { unknown: ['nope'] } });
  expect(validateResponse('/v1/tools/preview', 'post', 400, bad.body)).toEqual([]);
});
