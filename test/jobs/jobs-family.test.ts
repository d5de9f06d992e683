/**
 * Where the `jobs` family is assembled: a main turn that asks for it gets the six tools (strict
 * schemas); a background job's own turn, a workflow task turn and a scheduled turn never do, and
 * `unavailable` says why. A job turn's own tool set has no schedule, workflow or jobs tools.
 */
import { describe, expect, it } from 'vitest';
import { assembleTools } from '../../src/assembly/assemble.js';
import type { TurnContext } from '../../src/assembly/context.js';
import { JobService } from '../../src/jobs/job-service.js';
import { SqliteJobStore } from '../../src/jobs/sqlite-job-store.js';
import { openDatabase } from '../../src/store/database.js';
import { JOB_TOOL_NAMES } from '../../src/tools/jobs/index.js';
import { turnContext } from '../tools/computer/support.js';

function withJobs(ctx: TurnContext, kind: TurnContext['kind'] = 'main'): TurnContext {
  const jobs = new JobService({ config: { BACKGROUND_JOB_MAX_STEPS: 200, BACKGROUND_JOBS_MAX_RUNNING_PER_AGENT: 3 }, store: new SqliteJobStore(openDatabase(':memory:')) } as never);
  return { ...ctx, kind, services: { jobs } };
}

const jobsReason = async (ctx: TurnContext) => (await assembleTools(ctx)).unavailable.find((u) => u.family === 'jobs')?.reason;

describe('jobs family', () => {
  it('gives a main turn that asks for it the six tools, each strict', async () => {
    const { tools } = await assembleTools(withJobs(turnContext('/tmp/jobs-family', { families: ['jobs'] })));
    expect(tools.map((t) => t.name)).toEqual([...JOB_TOOL_NAMES]);
    expect(tools.every((t) => t.strict)).toBe(true);
  });

  it('is absent, with a reason, where jobs must not be managed', async () => {
    const base = turnContext('/tmp/jobs-family', { families: ['jobs', 'todo', 'computer', 'web', 'schedule', 'workflow', 'clarify'] });
    expect(await jobsReason(withJobs(turnContext('/tmp/jobs-family', { families: ['todo'] })))).toBe('not enabled for this turn');
    expect(await jobsReason(withJobs(base, 'background_job'))).toBe('background jobs cannot start or manage background jobs (one level deep)');
    expect(await jobsReason(withJobs(base, 'workflow_task'))).toBe('workflow task turns cannot start background jobs');
    expect(await jobsReason(withJobs(base, 'scheduled'))).toBe('only main turns manage background jobs');
    expect(await jobsReason({ ...base, services: {} })).toBe('background job service not configured on this server');
    for (const kind of ['background_job', 'workflow_task', 'scheduled'] as const) {
      const names = (await assembleTools(withJobs(base, kind))).tools.map((t) => t.name);
      expect(names.filter((n) => (JOB_TOOL_NAMES as readonly string[]).includes(n))).toEqual([]);
    }
  });

  it("builds a job turn's tools from todo, computer, web, skills and clarify only", async () => {
    const base = turnContext('/tmp/jobs-family', { families: ['jobs', 'todo', 'computer', 'web', 'schedule', 'workflow', 'clarify'] });
    const { tools, unavailable } = await assembleTools(withJobs(base, 'background_job'));
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['todo', 'read_file', 'clarify']));
    expect(names.filter((n) => /^(schedule_|workflow_)/.test(n))).toEqual([]);
    expect(unavailable.map((u) => u.family)).not.toContain('schedule');
  });
});
