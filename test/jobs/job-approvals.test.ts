/**
 * Background jobs whose turn waits for a tool approval, through the HTTP API with the scripted
 * model (the real openai SDK over loopback), real commands in the bubblewrap sandbox and SQLite:
 * the job shows `waiting_on_approval` with the calls it waits on (GET /v1/jobs/{id}, its stream,
 * the jobs tools), holds no running slot meanwhile (with BACKGROUND_JOBS_MAX_RUNNING_PER_AGENT at
 * 3, a 4th job starts and finishes while three wait), goes back to `running` when the call is
 * decided over HTTP (approved: the command runs; rejected: the model reads the rejection) and
 * ends `succeeded`; a job waiting on approvals that is stopped ends `stopped` (its turn cannot be cancelled directly: 409 `turn_owned`;
 * a decision after the stop is 409 `turn_finished` pointing at the job); an approval that times
 * out resumes the job like a rejection; a job waiting across a restart of the service (same
 * DATA_DIR) is approved after it and finishes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APPROVAL_TIMED_OUT_OUTPUT } from '../../src/runtime/approval-gate.js';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, startTestService, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { validateComponent, validateResponse } from '../e2e/support/spec.js';
import { job, lastToolOutput, routedEntries, waitFor } from './support.js';

const harness = useScriptedService();

const statusOf = async (base: string, id: string, status: string) => {
  const j = await job(base, id);
  return j.status === status ? j : undefined;
};

describe('background jobs waiting for approvals', () => {
  it('wait on approvals with their slot released, resume when decided over HTTP, and end by the decision', async () => {
    const main = 'approvals: start four jobs';
    const tasks = ['approve me', 'reject me', 'cancel me', 'just answer'].map((t) => `job-approvals task: ${t}`);
    const ids: string[] = [];
    const outputs: any[] = [];
    harness.model.push(
      ...routedEntries({
        [main]: [
          { output: tasks.map((task, i) => functionCall('create_background_job', { title: `Job ${'ABCD'[i]}`, task, notify: false })) },
          (body) => {
            ids.push(...(body.input as any[]).filter((i) => i.type === 'function_call_output').map((i) => JSON.parse(i.output).job_id));
            return { output: [message('four jobs started')] };
          },
          // Second turn: what the jobs tools show of a job waiting for approvals.
          () => ({ output: [functionCall('show_background_job_details', { job_id: ids[0] })] }),
          (body) => (outputs.push(lastToolOutput(body)), { output: [functionCall('list_background_jobs', {})] }),
          (body) => (outputs.push(lastToolOutput(body)), { output: [functionCall('send_message_to_background_job', { job_id: ids[0], message: 'hurry up' })] }),
          (body) => (outputs.push(lastToolOutput(body)), { output: [message('checked')] }),
        ],
        [tasks[0]]: [
          { output: [functionCall('command', { command: 'echo approved-run' }, { callId: 'call_a' })] },
          (body) => ({ output: [message(`ran: ${String(lastToolOutput(body)).split('\n').slice(1).join('').trim()}`)] }),
        ],
        [tasks[1]]: [
          { output: [functionCall('command', { command: 'echo never-runs' }, { callId: 'call_b' })] },
          (body) => ({ output: [message(`not run: ${lastToolOutput(body)}`)] }),
        ],
        [tasks[2]]: [{ output: [functionCall('command', { command: 'echo cancelled' }, { callId: 'call_c' })] }],
        [tasks[3]]: [{ output: [message('D answered')] }],
      }),
    );
    const base = harness.svc.url;
    const first = await api(base, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'job-approvals', tools: ['jobs', 'computer'], approvals: { command: 'always' } });
    expect(first.body).toMatchObject({ status: 'completed', output_text: 'four jobs started' });
    expect(ids).toHaveLength(4);
    const [a, b, c, d] = ids;

    // A, B and C wait for a person; their slots are free, so D (queued behind them) runs and finishes.
    const waiting = await Promise.all([a, b, c].map((id) => waitFor(() => statusOf(base, id, 'waiting_on_approval'), 30_000)));
    const calls = ['call_a', 'call_b', 'call_c'];
    waiting.forEach((j, i) => {
      expect(j.pending_approvals).toEqual([{ turn_id: j.turn_ids[0], call_id: calls[i], name: 'command', label: expect.stringContaining('echo'), expires_at: expect.any(String) }]);
    });
    const dDone = await waitFor(() => statusOf(base, d, 'succeeded'), 30_000);
    expect(dDone.output_text).toBe('D answered');
    for (const id of [a, b, c]) expect((await job(base, id)).status).toBe('waiting_on_approval');
    expect(validateResponse('/v1/jobs/{id}', 'get', 200, waiting[0])).toEqual([]);
    const listed = await api(base, 'GET', '/v1/jobs?agent_id=job-approvals&status=waiting_on_approval');
    expect(validateResponse('/v1/jobs', 'get', 200, listed.body)).toEqual([]);
    expect(listed.body.data.map((j: any) => j.id).sort()).toEqual([a, b, c].sort());
    expect((await api(base, 'GET', '/v1/jobs?agent_id=job-approvals&status=running')).body.data).toEqual([]);

    // The jobs tools say what the job waits for (and a message does not wait for a reply that cannot come).
    const second = await api(base, 'POST', '/v1/turns?wait=true', { input: 'check on A', previous_turn_id: first.body.id, agent_id: 'job-approvals', tools: ['jobs'] });
    expect(second.body.status).toBe('completed');
    const [shown, list, sent] = outputs;
    expect(shown).toMatchObject({ job_id: a, status: 'waiting_on_approval', pending_approvals: [{ call_id: 'call_a', name: 'command' }] });
    expect(shown.waiting_for).toMatch(/^waiting for a person to approve or reject: command \(.*echo approved-run.*\) \[call call_a\]$/);
    expect(list.jobs.filter((j: any) => j.status === 'waiting_on_approval').map((j: any) => j.job_id).sort()).toEqual([a, b, c].sort());
    expect(sent).toMatchObject({ job_id: a, delivery: 'steering', status: 'waiting_on_approval', reply_ready: false, wait_outcome: 'waiting_on_approval' });

    // Approve A over HTTP: it runs again and succeeds with the command's output.
    const aTurn = waiting[0].turn_ids[0];
    expect((await api(base, 'POST', `/v1/turns/${aTurn}/approvals`, { call_id: 'call_a', decision: 'approve' })).status).toBe(200);
    const aDone = await waitFor(() => statusOf(base, a, 'succeeded'), 30_000);
    expect(aDone).toMatchObject({ output_text: 'ran: approved-run', pending_approvals: [], attempts: 1 });
    const aAll = (await readSse(`${base}/v1/jobs/${a}/events`)).events;
    expect(aAll.map((e) => e.event)).toContain('job.message_applied'); // the steering message reached the resumed turn
    const aEvents = aAll.filter((e) => e.event !== 'job.activity' && e.event !== 'job.message_applied');
    expect(aEvents.map((e) => e.event)).toEqual(['job.created', 'job.started', 'job.waiting_on_approval', 'job.message', 'job.resumed', 'job.succeeded']);
    expect(aEvents[2].json).toMatchObject({ turn_id: aTurn, approvals: [{ call_id: 'call_a', name: 'command', turn_id: aTurn }] });
    for (const ev of aAll) expect(validateComponent('JobEvent', ev.json), ev.event).toEqual([]);

    // Reject B: the model reads the rejection and answers; the job succeeds with that answer.
    const bTurn = waiting[1].turn_ids[0];
    expect((await api(base, 'POST', `/v1/turns/${bTurn}/approvals`, { call_id: 'call_b', decision: 'reject', reason: 'not on prod' })).status).toBe(200);
    const bDone = await waitFor(() => statusOf(base, b, 'succeeded'), 30_000);
    expect(bDone.output_text).toBe('not run: Error: the user rejected this call: not on prod');

    // C's waiting turn belongs to the job: cancelling or steering it directly is refused; stopping the job ends it.
    const cTurn = waiting[2].turn_ids[0];
    const refused = await api(base, 'POST', `/v1/turns/${cTurn}/cancel`);
    expect(refused.body.error).toMatchObject({ code: 'turn_owned', details: { turn_id: cTurn, kind: 'background_job', status: 'waiting', job_id: c } });
    expect((await api(base, 'POST', `/v1/turns/${cTurn}/messages`, { content: 'skip it' })).body.error.code).toBe('turn_owned');
    expect((await job(base, c)).status).toBe('waiting_on_approval');
    expect((await api(base, 'POST', `/v1/jobs/${c}/stop`)).status).toBe(200);
    const cDone = await waitFor(() => statusOf(base, c, 'stopped'), 30_000);
    expect(cDone.pending_approvals).toEqual([]);
    const cEvents = (await readSse(`${base}/v1/jobs/${c}/events`)).events.map((e) => e.event);
    expect(cEvents.slice(-2)).toEqual(['job.waiting_on_approval', 'job.stopped']);
    // Deciding the call of the stopped job's turn is too late; the refusal points at the job (its
    // messages, respawn), not at a new turn with previous_turn_id, which a job's turn refuses.
    const late = await api(base, 'POST', `/v1/turns/${cTurn}/approvals`, { call_id: 'call_c', decision: 'approve' });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'turn_finished', details: { turn_id: cTurn, call_id: 'call_c', status: 'cancelled', kind: 'background_job', job_id: c } });
    expect(late.body.error.message).toMatch(new RegExp(`run by background job ${c}.*GET /v1/jobs/${c}.*POST /v1/jobs/${c}/messages.*respawn_background_job`));
    expect(late.body.error.message).not.toMatch(/continue the conversation with a new turn/);
    expect(late.body.error.details.hint).toBeUndefined();
    const cont = await api(base, 'POST', '/v1/turns', { input: 'go on', agent_id: 'job-approvals', previous_turn_id: cTurn });
    expect(cont.body.error.code).toBe('previous_turn_owned'); // why the plain hint would mislead
  }, 120_000);
});

describe('a background job whose approval times out', () => {
  const timing = useScriptedService({ env: { APPROVAL_TIMEOUT_S: '2' } });

  it('resumes when the call is rejected as timed out and ends by what the model does then', async () => {
    const main = 'approvals: a job nobody approves';
    const task = 'job-approvals task: wait for nobody';
    let jobId = '';
    timing.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('create_background_job', { title: 'Unattended', task, notify: false })] },
          (body) => ((jobId = lastToolOutput(body).job_id), { output: [message('started')] }),
        ],
        [task]: [
          { output: [functionCall('command', { command: 'echo late' }, { callId: 'call_t' })] },
          (body) => ({ output: [message(`gave up: ${lastToolOutput(body)}`)] }),
        ],
      }),
    );
    const base = timing.svc.url;
    const created = await api(base, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'job-approvals-timeout', tools: ['jobs', 'computer'], approvals: { command: 'always' } });
    expect(created.body.status).toBe('completed');
    const events = await readSse(`${base}/v1/jobs/${jobId}/events`, { timeoutMs: 60_000 });
    expect(events.events.map((e) => e.event).filter((t) => t !== 'job.activity')).toEqual(['job.created', 'job.started', 'job.waiting_on_approval', 'job.resumed', 'job.succeeded']);
    expect(events.events.at(-1)!.json.output_text).toBe(`gave up: ${APPROVAL_TIMED_OUT_OUTPUT}`);
  }, 90_000);
});

describe('a background job waiting for approval across a restart', () => {
  it('is still waiting_on_approval after the restart, and approving it then finishes the job', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'job-approvals-restart-'));
    const start = () => startTestService({ modelBaseURL: harness.model.baseURL, dataDir });
    let svc = await start();
    try {
      const main = 'approvals: a job across a restart';
      const task = 'job-approvals task: survive a restart';
      let jobId = '';
      harness.model.push(
        ...routedEntries({
          [main]: [
            { output: [functionCall('create_background_job', { title: 'Durable', task, notify: false })] },
            (body) => ((jobId = lastToolOutput(body).job_id), { output: [message('started')] }),
          ],
          [task]: [
            { output: [functionCall('command', { command: 'echo after-restart' }, { callId: 'call_r' })] },
            (body) => ({ output: [message(`ran: ${String(lastToolOutput(body)).split('\n').slice(1).join('').trim()}`)] }),
          ],
        }),
      );
      const created = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'job-approvals-restart', tools: ['jobs', 'computer'], approvals: { command: 'always' } });
      expect(created.body.status).toBe('completed');
      const waiting = await waitFor(() => statusOf(svc.url, jobId, 'waiting_on_approval'), 30_000);
      await svc.close({ keepData: true });
      svc = await start();
      expect(await job(svc.url, jobId)).toMatchObject({ status: 'waiting_on_approval', pending_approvals: [{ call_id: 'call_r', turn_id: waiting.turn_ids[0] }] });
      expect((await api(svc.url, 'POST', `/v1/turns/${waiting.turn_ids[0]}/approvals`, { call_id: 'call_r', decision: 'approve' })).status).toBe(200);
      const done = await waitFor(() => statusOf(svc.url, jobId, 'succeeded'), 30_000);
      expect(done.output_text).toBe('ran: after-restart');
    } finally {
      await svc.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
