/**
 * Work that stays in progress for the control routes' tests (stop, cancel, cross-site refusals),
 * on a scripted service harness: a background job waiting on its user's answer, and a workflow
 * whose one task's model answer is held. Prompts carry `prefix` and a counter, so calls never
 * share script entries on the one scripted model.
 */
import { expect } from 'vitest';
import { functionCall, message } from '../../support/scripted-responses-server.js';
import { lastToolOutput, routedEntries, waitFor } from '../../jobs/support.js';
import { firstUserText, SCHEMA } from '../../workflows/support.js';
import { api, type ScriptedServiceHarness } from './service.js';

/** Builders of held work on `harness`; `agentId` is the agent whose main turn starts the jobs. */
export function heldWork(harness: ScriptedServiceHarness, prefix: string, agentId: string) {
  let n = 0;
  return {
    /**
     * A background job (started by a main turn, notify off) that asks a question and waits on the
     * answer; once answered, its task's model says `answer` (omitted: no entry, the job stays
     * waiting). @returns its id.
     */
    async waitingJob(answer?: string): Promise<string> {
      const main = `${prefix}: start a job #${++n}`;
      const task = `${prefix} task: ask a question #${n}`;
      let jobId = '';
      harness.model.push(
        ...routedEntries({
          [main]: [
            { output: [functionCall('create_background_job', { title: 'Asks', task, notify: false })] },
            (body) => {
              jobId = lastToolOutput(body).job_id;
              return { output: [message('started')] };
            },
          ],
          [task]: [{ output: [functionCall('clarify', { question: 'Which one?' })] }, ...(answer === undefined ? [] : [{ output: [message(answer)] }])],
        }),
      );
      const turn = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: agentId, tools: ['jobs'] });
      expect(turn.body.status).toBe('completed');
      await waitFor(async () => (await api(harness.svc.url, 'GET', `/v1/jobs/${jobId}`)).body.status === 'waiting_on_user', 30_000);
      return jobId;
    },
    /** A workflow (with `extra` request fields) whose one task's model answer is held for 30 s: it stays running until cancelled. @returns its id. */
    async runningWorkflow(extra: Record<string, unknown> = {}): Promise<string> {
      const p = `${prefix}: slow task #${++n}`;
      harness.model.push(...routedEntries({ [p]: [{ output: [message('late')], holdMs: 30_000 }] }));
      const r = await api(harness.svc.url, 'POST', '/v1/workflows', { title: 'held', tasks: [{ label: p, prompt: p, result_schema: SCHEMA }], ...extra });
      expect(r.status).toBe(201);
      await waitFor(() => harness.model.requests.some((q) => firstUserText(q.body) === p)); // the held request is in flight
      return r.body.id;
    },
  };
}
