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

describe('the skills of a background job made by a turn that sent no skills', () => {
  const limited = useScriptedService({ env: { SKILLS_DIR: builtins, BACKGROUND_JOBS_MAX_RUNNING_PER_AGENT: '1' } });

  it("are the agent's enabled list when the job was created, not when it starts", async () => {
    const base = limited.svc.url;
    const agent = 'job-skills-later';
    expect((await api(base, 'PUT', `/v1/agents/${agent}/skills`, { enabled: ['agent-skill'] })).status).toBe(200);
    const main = 'job-skills-later: make two jobs';
    const [blocker, checker] = ['job-skills-later: blocker', 'job-skills-later: checker'];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let seen: { tools: string[]; output: string } | undefined;
    limited.model.push(
      ...routedEntries({
        [main]: [{ output: [blocker, checker].map((task) => functionCall('create_background_job', { title: task, task, notify: false })) }, { output: [message('started')] }],
        // The first job holds the agent's one running slot until the enabled list has changed.
        [blocker]: [async () => (await gate, { output: [message('blocker done')] })],
        [checker]: [
          { output: [functionCall('skill_view', { name: 'agent-skill' })] },
          (body) => {
            seen = { tools: (body.tools as { name?: string }[]).map((t) => t.name ?? ''), output: String(lastToolOutput(body)) };
            return { output: [message('checked')] };
          },
        ],
      }),
    );
    expect((await api(base, 'POST', '/v1/turns?wait=true', { input: main, agent_id: agent, tools: ['jobs'] })).body.status).toBe('completed');
    const jobs = (await api(base, 'GET', `/v1/jobs?agent_id=${agent}`)).body.data as { id: string; title: string }[];
    const idOf = (title: string) => jobs.find((j) => j.title === title)!.id;
    await waitFor(async () => ((await job(base, idOf(blocker))).status === 'running' ? true : undefined));
    expect((await job(base, idOf(checker))).status).toBe('queued');
    // The agent's list changes while the second job waits for a slot: that job keeps the list it was made with.
    expect((await api(base, 'PUT', `/v1/agents/${agent}/skills`, { enabled: [] })).status).toBe(200);
    release();
    await waitFor(async () => ((await job(base, idOf(checker))).status === 'succeeded' ? true : undefined));
    expect(seen!.tools).toContain('skill_view');
    expect(seen!.output).toContain('# agent-skill body');
    // The record is not shown by the API.
    expect(Object.keys(await job(base, idOf(checker)))).not.toContain('skills');
  });
});
