/**
 * The question cap of background jobs (BACKGROUND_JOB_MAX_QUESTIONS), through the HTTP API with
 * the scripted model: a job may ask as many questions as the cap allows, each answered through
 * POST /v1/jobs/{id}/messages; the next question fails the job `too_many_questions` (the summary
 * quotes it and says how to go on) instead of waiting for yet another answer. What the job's model
 * is told of each question is true: passed on while under the cap, not passed on past it (a
 * respawn continues that transcript).
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { job, lastToolOutput, routedEntries, waitFor } from './support.js';

const harness = useScriptedService({ env: { BACKGROUND_JOB_MAX_QUESTIONS: '2' } });

describe('a background job that keeps asking', () => {
  it('is answered up to BACKGROUND_JOB_MAX_QUESTIONS times; the next question fails it too_many_questions', async () => {
    const main = 'questions: start a curious job';
    const task = 'questions task: keep asking';
    let jobId = '';
    const seen: string[] = []; // the clarify output each later request of the job's transcript carries
    harness.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('create_background_job', { title: 'Curious', task, notify: false })] },
          (body) => ((jobId = lastToolOutput(body).job_id), { output: [message('started')] }),
        ],
        [task]: [
          { output: [functionCall('clarify', { question: 'First question?' })] },
          (body) => (seen.push(lastToolOutput(body)), { output: [functionCall('clarify', { question: 'Second question?' })] }),
          (body) => (seen.push(lastToolOutput(body)), { output: [functionCall('clarify', { question: 'Third question?' })] }),
          // The respawned job continues the failed one's transcript.
          (body) => (seen.push(lastToolOutput(body)), { output: [message('finished with the answer')] }),
        ],
        'questions: respawn it': [
          () => ({ output: [functionCall('respawn_background_job', { source_job_id: jobId, message: 'answer three' })] }),
          { output: [message('respawned')] },
        ],
      }),
    );
    const created = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'jobs-questions', tools: ['jobs'] });
    expect(created.body.status).toBe('completed');
    const waitingOn = (question: string) =>
      waitFor(async () => {
        const j = await job(harness.svc.url, jobId);
        return j.status === 'waiting_on_user' && j.question === question ? j : undefined;
      }, 30_000);

    await waitingOn('First question?');
    expect((await api(harness.svc.url, 'POST', `/v1/jobs/${jobId}/messages`, { message: 'answer one' })).body).toMatchObject({ delivery: 'answer' });
    await waitingOn('Second question?'); // the cap is 2: the second question still waits
    expect((await api(harness.svc.url, 'POST', `/v1/jobs/${jobId}/messages`, { message: 'answer two' })).body).toMatchObject({ delivery: 'answer' });

    const failed = await waitFor(async () => {
      const j = await job(harness.svc.url, jobId);
      return j.status === 'failed' ? j : undefined;
    }, 30_000);
    expect(failed).toMatchObject({
      attempts: 3,
      question: null,
      error: {
        code: 'too_many_questions',
        summary: 'the job asked question 3, past BACKGROUND_JOB_MAX_QUESTIONS (2): "Third question?". Respawn it (respawn_background_job) with the answer and everything it needs to finish without asking',
        retryable: false,
      },
    });
    const kinds = (await readSse(`${harness.svc.url}/v1/jobs/${jobId}/events`)).events.map((e) => e.event).filter((t) => t !== 'job.activity');
    expect(kinds).toEqual(['job.created', 'job.started', 'job.waiting_on_user', 'job.message', 'job.started', 'job.waiting_on_user', 'job.message', 'job.started', 'job.failed']);
    // A message to the failed job is refused, as to any finished job.
    expect(await api(harness.svc.url, 'POST', `/v1/jobs/${jobId}/messages`, { message: 'answer three' })).toMatchObject({ status: 409, body: { error: { code: 'job_finished' } } });

    // Respawned, the job's model reads what it was told of each question: under the cap that it
    // was passed on and the answer comes next; past it that it was not passed on, and why.
    expect((await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'questions: respawn it', agent_id: 'jobs-questions', tools: ['jobs'] })).body.status).toBe('completed');
    await waitFor(async () => (seen.length === 3 ? true : undefined), 30_000);
    const passedOn = 'The question goes to whoever started this background job; the job waits for their answer, which arrives as the next message.';
    expect(seen).toEqual([
      passedOn,
      passedOn,
      'The question was not passed on to anyone: this background job has already asked 2 questions, the most it may (BACKGROUND_JOB_MAX_QUESTIONS), ' +
        'so it ends here as failed (too_many_questions) with this question in its error. If it is continued, the next message brings the answer and what is needed to finish without asking.',
    ]);
  }, 90_000);
});
