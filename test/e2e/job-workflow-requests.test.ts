/**
 * What the job and workflow control routes accept, through the real server and a scripted model:
 * POST /v1/jobs/{id}/stop and POST /v1/workflows/{id}/cancel take no fields (like POST
 * /v1/turns/{id}/cancel).
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from './support/service.js';
import { validateResponse } from './support/spec.js';
import { lastToolOutput, routedEntries, waitFor } from '../jobs/support.js';
import { firstUserText, SCHEMA } from '../workflows/support.js';

const harness = useScriptedService();

let n = 0;

/** A background job (started by a main turn, notify off) that asks a question and waits on the answer. */
async function waitingJob(): Promise<string> {
  const main = `requests: start a job #${++n}`;
  const task = `requests task: ask a question #${n}`;
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
      [task]: [{ output: [functionCall('clarify', { question: 'Which one?' })] }],
    }),
  );
  const turn = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'job-requests', tools: ['jobs'] });
  expect(turn.body.status).toBe('completed');
  await waitFor(async () => (await api(harness.svc.url, 'GET', `/v1/jobs/${jobId}`)).body.status === 'waiting_on_user', 30_000);
  return jobId;
}

/** A workflow whose one task's model answer is held for a long time: it stays running until cancelled. */
async function runningWorkflow(): Promise<string> {
  const p = `requests: slow task #${++n}`;
  harness.model.push(...routedEntries({ [p]: [{ output: [message('late')], holdMs: 30_000 }] }));
  const r = await api(harness.svc.url, 'POST', '/v1/workflows', { title: 'held', tasks: [{ label: p, prompt: p, result_schema: SCHEMA }] });
  expect(r.status).toBe(201);
  await waitFor(() => harness.model.requests.some((q) => firstUserText(q.body) === p)); // the held request is in flight
  return r.body.id;
}

describe('POST /v1/jobs/{id}/stop body', () => {
  it('refuses unknown fields with 400 invalid_request naming the field and saying the route takes none; the job is not stopped', async () => {
    const id = await waitingJob();
    const r = await api(harness.svc.url, 'POST', `/v1/jobs/${id}/stop`, { reason: 'x' });
    expect(r.status).toBe(400);
    expect(validateResponse('/v1/jobs/{id}/stop', 'post', 400, r.body)).toEqual([]);
    expect(r.body.error).toEqual({
      code: 'invalid_request',
      message: 'the request body has unknown field "reason": stop takes no fields; send no body or {}',
      details: [{ path: '', code: 'unrecognized_keys', message: 'has unknown field "reason": stop takes no fields; send no body or {}' }],
    });
    const two = await api(harness.svc.url, 'POST', `/v1/jobs/${id}/stop`, { reason: 'x', force: true });
    expect(two.body.error.message).toBe('the request body has unknown fields "reason", "force": stop takes no fields; send no body or {}');
    const notObject = await api(harness.svc.url, 'POST', `/v1/jobs/${id}/stop`, ['x']);
    expect(notObject.status).toBe(400);
    expect(notObject.body.error).toMatchObject({ code: 'invalid_request', message: 'the request body must be {} or absent: stop takes no fields; send no body or {}' });
    expect((await api(harness.svc.url, 'GET', `/v1/jobs/${id}`)).body.status).toBe('waiting_on_user');

    const stopped = await api(harness.svc.url, 'POST', `/v1/jobs/${id}/stop`, {});
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ id, status: 'stopped' });
    const again = await api(harness.svc.url, 'POST', `/v1/jobs/${id}/stop`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id, status: 'stopped', finished_at: stopped.body.finished_at });
  }, 60_000);

  it('answers 404 for an unknown job whatever the body', async () => {
    expect((await api(harness.svc.url, 'POST', '/v1/jobs/nope/stop')).status).toBe(404);
  });
});

describe('POST /v1/workflows/{id}/cancel body', () => {
  it('refuses unknown fields with 400 invalid_request naming the field and saying the route takes none; the workflow keeps running', async () => {
    const id = await runningWorkflow();
    const r = await api(harness.svc.url, 'POST', `/v1/workflows/${id}/cancel`, { reason: 'x' });
    expect(r.status).toBe(400);
    expect(validateResponse('/v1/workflows/{id}/cancel', 'post', 400, r.body)).toEqual([]);
    expect(r.body.error).toEqual({
      code: 'invalid_request',
      message: 'the request body has unknown field "reason": cancel takes no fields; send no body or {}',
      details: [{ path: '', code: 'unrecognized_keys', message: 'has unknown field "reason": cancel takes no fields; send no body or {}' }],
    });
    const notObject = await api(harness.svc.url, 'POST', `/v1/workflows/${id}/cancel`, '"x"');
    expect(notObject.status).toBe(400);
    expect(notObject.body.error).toMatchObject({ code: 'invalid_request', message: 'the request body must be {} or absent: cancel takes no fields; send no body or {}' });
    expect((await api(harness.svc.url, 'GET', `/v1/workflows/${id}`)).body.status).toBe('running');

    const cancelled = await api(harness.svc.url, 'POST', `/v1/workflows/${id}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id, status: 'cancelled' });
    const again = await api(harness.svc.url, 'POST', `/v1/workflows/${id}/cancel`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id, status: 'cancelled', completed_at: cancelled.body.completed_at });
  }, 60_000);
});
