/**
 * Job notices do not chain on their own, through the HTTP API with the scripted model (real SDK
 * over loopback) and SQLite: a person's turn starts job 0; its notice starts follow-up turn 1,
 * which starts job 1; job 1's notice starts follow-up turn 2, which starts job 2 — two follow-up
 * turns deep (JOB_NOTICE_MAX_DEPTH), so job 2 does not notify (its create result says so) and no
 * third follow-up turn starts when it succeeds. A person continuing the conversation is back at
 * depth 0: the job they start notifies again.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { JOB_NOTICE_MAX_DEPTH } from '../../src/jobs/notice-depth.js';
import { job, lastToolOutput, routedEntries, turnsOf, waitFor } from './support.js';

const harness = useScriptedService();

const followUps = async (base: string, agent: string) => (await turnsOf(base, agent)).filter((t) => t.kind === 'main' && t.origin.type === 'background_job');

describe('job notice chains', () => {
  it(`stop after ${JOB_NOTICE_MAX_DEPTH} follow-up turns: a job started that deep does not notify`, async () => {
    expect(JOB_NOTICE_MAX_DEPTH).toBe(2);
    const main = 'chain: start a job that starts jobs';
    const tasks = [0, 1, 2, 3].map((i) => `chain task ${i}`);
    const ids: string[] = [];
    const creates: any[] = [];
    const startJob = (i: number) => () => ({ output: [functionCall('create_background_job', { title: `Chain ${i}`, task: tasks[i] })] });
    const keep = (reply: string) => (body: any) => {
      const out = lastToolOutput(body);
      creates.push(out);
      ids.push(out.job_id);
      return { output: [message(reply)] };
    };
    // Each job answers only after the turn that started it has its final answer (and then slowly), so its
    // notice finds that turn finished: a follow-up turn, not a steering message.
    const slowAnswer = (i: number) => async () => {
      await waitFor(() => (ids.length > i ? true : undefined), 30_000);
      return { output: [message(`job ${i} done`)], holdMs: 1000 };
    };
    harness.model.push(
      ...routedEntries({
        [main]: [
          startJob(0), keep('started job 0'), // the person's turn (depth 0)
          startJob(1), keep('started job 1'), // follow-up turn for job 0 (depth 1)
          startJob(2), keep('started job 2'), // follow-up turn for job 1 (depth 2)
          startJob(3), keep('started job 3'), // the person again (depth 0)
          { output: [message('job 3 reported')] }, // follow-up turn for job 3
        ],
        [tasks[0]]: [slowAnswer(0)],
        [tasks[1]]: [slowAnswer(1)],
        [tasks[2]]: [slowAnswer(2)],
        [tasks[3]]: [slowAnswer(3)],
      }),
    );
    const base = harness.svc.url;
    const agent = 'jobs-chain';
    const first = await api(base, 'POST', '/v1/turns?wait=true', { input: main, agent_id: agent, tools: ['jobs'] });
    expect(first.body).toMatchObject({ status: 'completed', output_text: 'started job 0' });
    const third = await waitFor(() => (ids.length === 3 ? ids[2] : undefined), 60_000);
    await waitFor(async () => ((await job(base, third)).status === 'succeeded' ? true : undefined), 30_000);
    const chain = await waitFor(async () => {
      const f = await followUps(base, agent);
      return f.length === 2 && f.every((t) => t.status === 'completed') ? f : undefined;
    }, 30_000);
    expect(chain.map((t) => t.origin.job_id).sort()).toEqual([ids[0], ids[1]].sort());
    expect(creates.map((c) => c.notify)).toEqual([true, true, false]);
    expect(creates[2].note).toMatch(/do not notify: nobody is told when this one ends/);
    expect(await job(base, ids[2])).toMatchObject({ notify: false, status: 'succeeded', output_text: 'job 2 done' });
    // Job 2 succeeded and tells nobody: no third follow-up turn.
    await new Promise((r) => setTimeout(r, 2000));
    expect(await followUps(base, agent)).toHaveLength(2);

    // A person continuing the conversation starts again at depth 0: the job they start notifies.
    const newest = (await turnsOf(base, agent)).find((t) => t.kind === 'main');
    const again = await api(base, 'POST', '/v1/turns?wait=true', { input: 'one more', previous_turn_id: newest.id, agent_id: agent, tools: ['jobs'] });
    expect(again.body, JSON.stringify(again.body.error)).toMatchObject({ status: 'completed', output_text: 'started job 3' });
    expect(creates[3]).toMatchObject({ notify: true });
    expect(creates[3].note).toBeUndefined();
    const reported = await waitFor(async () => (await followUps(base, agent)).find((t) => t.origin.job_id === ids[3] && t.status === 'completed'), 30_000);
    expect(reported.output_text).toBe('job 3 reported');
  }, 120_000);
});
