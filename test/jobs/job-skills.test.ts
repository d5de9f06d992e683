/**
 * A background job keeps the skills of the turn that created it, through the HTTP API with the
 * scripted model (the real openai SDK over loopback), built-in skills from SKILLS_DIR and SQLite:
 * a turn sent with `skills: []` makes a job that has no skills (its skill_view of a skill the
 * agent enables is an unknown tool); a turn with `skills: ["job-skill"]` (a `runtime:
 * background_job` skill the agent does not enable) makes a job that reads it; a turn that did
 * not send `skills` makes a job with the agent's enabled skills.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { skillMd } from '../support/archives.js';
import { job, lastToolOutput, routedEntries, waitFor } from './support.js';

const builtins = mkdtempSync(path.join(os.tmpdir(), 'job-skills-'));
for (const [name, extra] of [['agent-skill', ''], ['job-skill', 'runtime: background_job\n']]) {
  mkdirSync(path.join(builtins, name));
  writeFileSync(path.join(builtins, name, 'SKILL.md'), skillMd(name, `The ${name} skill`, `# ${name} body\n`, extra));
}
afterAll(() => rmSync(builtins, { recursive: true, force: true }));

const harness = useScriptedService({ env: { SKILLS_DIR: builtins } });

describe('the skills of a background job', () => {
  it("are the creating turn's skills: none for skills: [], a per-turn skill for skills: [x], the agent's when the turn did not say", async () => {
    const base = harness.svc.url;
    expect((await api(base, 'PUT', '/v1/agents/job-skills/skills', { enabled: ['agent-skill'] })).status).toBe(200);
    const cases = [
      { main: 'job-skills: none', skills: [] as string[] | undefined, view: 'agent-skill' },
      { main: 'job-skills: per-turn', skills: ['job-skill'], view: 'job-skill' },
      { main: 'job-skills: default', skills: undefined, view: 'agent-skill' },
    ];
    const seen: Record<string, { tools: string[]; output: string }> = {};
    const routes: Parameters<typeof routedEntries>[0] = {};
    for (const c of cases) {
      const task = `${c.main} task`;
      routes[c.main] = [{ output: [functionCall('create_background_job', { title: c.main, task, notify: false })] }, { output: [message('started')] }];
      routes[task] = [
        { output: [functionCall('skill_view', { name: c.view })] },
        (body) => {
          seen[c.main] = { tools: (body.tools as { name?: string }[]).map((t) => t.name ?? ''), output: String(lastToolOutput(body)) };
          return { output: [message('done')] };
        },
      ];
    }
    harness.model.push(...routedEntries(routes));

    const jobIds: Record<string, string> = {};
    for (const c of cases) {
      const r = await api(base, 'POST', '/v1/turns?wait=true', { input: c.main, agent_id: 'job-skills', tools: ['jobs'], ...(c.skills ? { skills: c.skills } : {}) });
      expect(r.body.status).toBe('completed');
      const created = (await api(base, 'GET', `/v1/jobs?agent_id=job-skills`)).body.data.find((j: any) => j.title === c.main);
      jobIds[c.main] = created.id;
    }
    for (const c of cases) await waitFor(async () => ((await job(base, jobIds[c.main])).status === 'succeeded' ? true : undefined));

    // skills: [] → the job has no skills: skill_view is not among its tools, the agent's skill unreadable.
    expect(seen['job-skills: none'].tools).not.toContain('skill_view');
    expect(seen['job-skills: none'].output).toMatch(/^Error: unknown tool skill_view\./);
    expect(seen['job-skills: none'].output).not.toContain('agent-skill body');
    // skills: ["job-skill"] → the job reads the background-only skill the agent does not enable.
    expect(seen['job-skills: per-turn'].output).toContain('# job-skill body');
    // No skills field → the agent's enabled skills.
    expect(seen['job-skills: default'].output).toContain('# agent-skill body');

  });
});
