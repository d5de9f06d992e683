/**
 * A background job's turn and a workflow task's turn belong to their owner while active: POST
 * /v1/turns/{id}/messages and POST /v1/turns/{id}/cancel refuse them with 409 `turn_owned`,
 * naming the owner's route to use instead, and leave the turn running; the owner's routes still
 * steer and stop the work. Finished, such a turn still cannot be continued by a main turn (409
 * `previous_turn_owned` naming the owner). Real service, scripted model over the real openai SDK, SQLite.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { validateResponse } from '../e2e/support/spec.js';
import { job, lastToolOutput, messageTexts, routedEntries, waitFor } from '../jobs/support.js';

const harness = useScriptedService();

const steer = (id: string) => api(harness.svc.url, 'POST', `/v1/turns/${id}/messages`, { content: 'take it over' });
const cancel = (id: string) => api(harness.svc.url, 'POST', `/v1/turns/${id}/cancel`);
const statusOf = async (id: string) => (await harness.svc.services.turns.get(id))?.status;

describe('a running background job turn', () => {
  it('is not steered or cancelled through /v1/turns (409 turn_owned naming the job routes); the job messages route steers it', async () => {
    const main = 'owned: start a job';
    const task = 'owned job task: answer slowly';
    let jobId = '';
    let jobSaw: string[] = [];
    harness.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('create_background_job', { title: 'Slow', task, notify: false })] },
          (body) => ((jobId = lastToolOutput(body).job_id), { output: [message('started')] }),
        ],
        [task]: [
          { output: [functionCall('command', { command: 'sleep 2; echo slept' })] },
          (body) => ((jobSaw = messageTexts(body, 'user')), { output: [message('job done')] }),
        ],
      }),
    );
    const first = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'owned-job', tools: ['jobs'] });
    expect(first.body).toMatchObject({ status: 'completed', output_text: 'started' });
    const turnId = (await waitFor(async () => (await job(harness.svc.url, jobId)).turn_ids?.[0], 30_000)) as string;
    await expect.poll(() => statusOf(turnId), { timeout: 30_000 }).toBe('running');

    const steered = await steer(turnId);
    expect(steered.status).toBe(409);
    expect(validateResponse('/v1/turns/{id}/messages', 'post', 409, steered.body)).toEqual([]);
    expect(steered.body.error).toEqual({
      code: 'turn_owned',
      message: `turn ${turnId} is run by background job ${jobId} and cannot be steered directly; send the message with POST /v1/jobs/${jobId}/messages instead`,
      details: { turn_id: turnId, kind: 'background_job', status: 'running', job_id: jobId },
    });
    const cancelled = await cancel(turnId);
    expect(cancelled.status).toBe(409);
    expect(validateResponse('/v1/turns/{id}/cancel', 'post', 409, cancelled.body)).toEqual([]);
    expect(cancelled.body.error).toEqual({
      code: 'turn_owned',
      message: `turn ${turnId} is run by background job ${jobId} and cannot be cancelled directly; stop it with POST /v1/jobs/${jobId}/stop instead`,
      details: { turn_id: turnId, kind: 'background_job', status: 'running', job_id: jobId },
    });
    expect(await statusOf(turnId)).toBe('running');

    // The job's own route steers it: the message reaches the job's next round, and the job succeeds.
    const viaJob = await api(harness.svc.url, 'POST', `/v1/jobs/${jobId}/messages`, { message: 'use tabs' });
    expect(viaJob.status).toBe(202);
    const done = await waitFor(async () => ((await job(harness.svc.url, jobId)).status === 'succeeded' ? true : undefined), 30_000);
    expect(done).toBe(true);
    expect(jobSaw.at(-1)).toContain('use tabs');
    // Finished: the turn routes act as for any turn (cancel returns it unchanged, steering is turn_finished).
    expect((await cancel(turnId)).body).toMatchObject({ id: turnId, status: 'completed' });
    // ...but the conversation stays the job's: the refusal points at the job, not at a continuation
    // (a main turn with that previous_turn_id is refused, below).
    const late = await steer(turnId);
    expect(late.status).toBe(409);
    expect(validateResponse('/v1/turns/{id}/messages', 'post', 409, late.body)).toEqual([]);
    expect(late.body.error).toEqual({
      code: 'turn_finished',
      message: `turn ${turnId} has already finished (completed); it was run by background job ${jobId}: read the job with GET /v1/jobs/${jobId} and, while it is live, send the message with POST /v1/jobs/${jobId}/messages`,
      details: { turn_id: turnId, status: 'completed', kind: 'background_job', job_id: jobId },
    });
    const before = harness.model.requests.length;
    const continued = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'go on', agent_id: 'owned-job', previous_turn_id: turnId });
    expect(continued.status).toBe(409);
    expect(validateResponse('/v1/turns', 'post', 409, continued.body)).toEqual([]);
    expect(continued.body.error).toEqual({
      code: 'previous_turn_owned',
      message: `turn ${turnId} was run by background job ${jobId} and belongs to it; it cannot be continued by another turn — its work goes on through the job: read it with GET /v1/jobs/${jobId} and, while the job is live, message it with POST /v1/jobs/${jobId}/messages; or leave out previous_turn_id to start a new conversation`,
      details: { previous_turn_id: turnId, kind: 'background_job', status: 'completed', job_id: jobId },
    });
    expect(harness.model.requests.length).toBe(before);
  }, 60_000);
});

describe('a running workflow task turn', () => {
  it('is not steered or cancelled through /v1/turns (409 turn_owned naming the workflow cancel route); the workflow cancel ends it', async () => {
    const prompt = 'owned: a task whose answer is held';
    harness.model.push({ output: [message('late')], holdMs: 15_000 });
    const wf = await api(harness.svc.url, 'POST', '/v1/workflows', {
      agent_id: 'owned-wf',
      title: 'owned',
      concurrency: 1,
      tasks: [{ label: 't', prompt, result_schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false } }],
    });
    expect(wf.status).toBe(201);
    const workflows = harness.svc.services.registry.workflows!;
    let turnId = '';
    await expect.poll(async () => (turnId = (await workflows.get(wf.body.id))!.tasks[0].turn_ids[0] ?? ''), { timeout: 30_000 }).not.toBe('');
    await expect.poll(() => statusOf(turnId), { timeout: 30_000 }).toBe('running');
    const cancelRoute = `POST /v1/workflows/${wf.body.id}/cancel`;
    const details = { turn_id: turnId, kind: 'workflow_task', status: 'running', workflow_id: wf.body.id };

    const steered = await steer(turnId);
    expect(steered.status).toBe(409);
    expect(steered.body.error).toEqual({
      code: 'turn_owned',
      message: `turn ${turnId} is run by a workflow task of workflow ${wf.body.id} and cannot be steered directly; a workflow task takes no messages: wait for the workflow, or cancel it with ${cancelRoute}`,
      details,
    });
    const cancelled = await cancel(turnId);
    expect(cancelled.status).toBe(409);
    expect(cancelled.body.error).toEqual({
      code: 'turn_owned',
      message: `turn ${turnId} is run by a workflow task of workflow ${wf.body.id} and cannot be cancelled directly; stop it with ${cancelRoute} instead`,
      details,
    });
    expect(await statusOf(turnId)).toBe('running');
    expect((await workflows.get(wf.body.id))!.status).toBe('running');

    expect((await api(harness.svc.url, 'POST', `/v1/workflows/${wf.body.id}/cancel`)).status).toBe(200);
    await expect.poll(() => statusOf(turnId), { timeout: 30_000 }).toBe('cancelled');
    expect((await workflows.get(wf.body.id))!.status).toBe('cancelled');
    // Finished, the task's turn is still the workflow's: no message, and a main turn cannot continue it.
    expect((await steer(turnId)).body.error).toEqual({
      code: 'turn_finished',
      message: `turn ${turnId} has already finished (cancelled); it was run by a workflow task of workflow ${wf.body.id}, which takes no messages: read the workflow with GET /v1/workflows/${wf.body.id}`,
      details: { turn_id: turnId, status: 'cancelled', kind: 'workflow_task', workflow_id: wf.body.id },
    });
    const continued = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'go on', agent_id: 'owned-wf', previous_turn_id: turnId, multitask_strategy: 'enqueue' });
    expect(continued.status).toBe(409);
    expect(continued.body.error).toEqual({
      code: 'previous_turn_owned',
      message: `turn ${turnId} was run by a workflow task of workflow ${wf.body.id} and belongs to it; it cannot be continued by another turn — its result is the workflow's: read it with GET /v1/workflows/${wf.body.id}; or leave out previous_turn_id to start a new conversation`,
      details: { previous_turn_id: turnId, kind: 'workflow_task', status: 'cancelled', workflow_id: wf.body.id },
    });
  }, 60_000);
});
