/**
 * Background jobs on Postgres with two real service instances on one database (DATABASE_URL,
 * LISTEN/NOTIFY): a job created by a turn on instance A is followed live from instance B's job
 * stream, asks a question, is answered through B, and succeeds exactly once (one start per
 * attempt, one terminal event, one follow-up turn) although both instances run the job passes;
 * a job whose command waits for approval shows `waiting_on_approval` on the other instance, is
 * approved there, and resumes and succeeds once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { describePostgres, freshSchema } from '../support/postgres.js';
import { api, startTestService, type TestService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { lastToolOutput, routedEntries, waitFor } from './support.js';

describePostgres('background jobs on two instances sharing Postgres', () => {
  let model: ScriptedResponsesServer;
  let a: TestService;
  let b: TestService;
  beforeAll(async () => {
    model = await startScriptedResponsesServer();
    const { url } = await freshSchema();
    const env = { DATABASE_URL: url, STREAM_TOKEN_SECRET: 'a-shared-secret-of-32-characters', DATABASE_POOL_MAX: '4' };
    a = await startTestService({ modelBaseURL: model.baseURL, env });
    b = await startTestService({ modelBaseURL: model.baseURL, env });
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await model?.close();
  });

  it('runs a job once across instances, streams it from the other one and takes the answer there', async () => {
    const main = 'pg: start a job';
    const task = 'pg task: ask, then finish';
    let jobId = '';
    model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('create_background_job', { title: 'Across', task })] },
          (body) => {
            jobId = lastToolOutput(body).job_id;
            return { output: [message('started on A')] };
          },
          { output: [message('noted the question')] },
          { output: [message('noted the result')] },
        ],
        [task]: [{ output: [functionCall('clarify', { question: 'Proceed?' })] }, { output: [message('Finished across instances.')] }],
      }),
    );
    const created = await api(a.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'jobs-pg', tools: ['jobs'] });
    expect(created.body.status).toBe('completed');
    const streamFromB = readSse(`${b.url}/v1/jobs/${jobId}/events`, { timeoutMs: 60_000 });
    await waitFor(async () => ((await api(b.url, 'GET', `/v1/jobs/${jobId}`)).body.status === 'waiting_on_user' ? true : undefined), 30_000);
    const sent = await api(b.url, 'POST', `/v1/jobs/${jobId}/messages`, { message: 'yes' });
    expect(sent).toMatchObject({ status: 202, body: { delivery: 'answer' } });
    const events = (await streamFromB).events.map((e) => e.event);
    expect(events.filter((t) => t === 'job.started')).toHaveLength(2);
    expect(events.filter((t) => t === 'job.waiting_on_user')).toHaveLength(1);
    expect(events.at(-1)).toBe('job.succeeded');
    expect(events.filter((t) => t === 'job.succeeded')).toHaveLength(1);
    const job = (await api(a.url, 'GET', `/v1/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: 'succeeded', attempts: 2, output_text: 'Finished across instances.' });
    // One follow-up per notice (question, success), whichever instance delivered it.
    const followUps = await waitFor(async () => {
      const turns = ((await api(a.url, 'GET', '/v1/turns?agent_id=jobs-pg&limit=50')).body.data as any[]).filter((t) => t.kind === 'main' && t.origin.type === 'background_job');
      return turns.length === 2 && turns.every((t) => t.status === 'completed') ? turns : undefined;
    }, 30_000);
    expect(followUps.map((t) => t.output_text).sort()).toEqual(['noted the question', 'noted the result']);
  }, 120_000);

  it('shows a job waiting for approval on the other instance, takes the decision there and resumes it once', async () => {
    const main = 'pg: a job under approvals';
    const task = 'pg task: a command that needs approval';
    let jobId = '';
    model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('create_background_job', { title: 'Guarded', task, notify: false })] },
          (body) => ((jobId = lastToolOutput(body).job_id), { output: [message('started on A')] }),
        ],
        [task]: [
          { output: [functionCall('command', { command: 'echo across' }, { callId: 'call_pg' })] },
          (body) => ({ output: [message(`ran: ${String(lastToolOutput(body)).split('\n').slice(1).join('').trim()}`)] }),
        ],
      }),
    );
    const created = await api(a.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'jobs-pg-approve', tools: ['jobs', 'computer'], approvals: { command: 'always' } });
    expect(created.body.status).toBe('completed');
    const waiting = await waitFor(async () => {
      const j = (await api(b.url, 'GET', `/v1/jobs/${jobId}`)).body;
      return j.status === 'waiting_on_approval' ? j : undefined;
    }, 30_000);
    expect(waiting.pending_approvals).toMatchObject([{ turn_id: waiting.turn_ids[0], call_id: 'call_pg', name: 'command' }]);
    const streamFromA = readSse(`${a.url}/v1/jobs/${jobId}/events`, { timeoutMs: 60_000 });
    expect((await api(b.url, 'POST', `/v1/turns/${waiting.turn_ids[0]}/approvals`, { call_id: 'call_pg', decision: 'approve' })).status).toBe(200);
    const events = (await streamFromA).events.map((e) => e.event).filter((t) => t !== 'job.activity');
    expect(events).toEqual(['job.created', 'job.started', 'job.waiting_on_approval', 'job.resumed', 'job.succeeded']);
    expect((await api(a.url, 'GET', `/v1/jobs/${jobId}`)).body).toMatchObject({ status: 'succeeded', output_text: 'ran: across', pending_approvals: [] });
  }, 120_000);
});
