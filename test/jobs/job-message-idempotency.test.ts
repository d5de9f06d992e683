/**
 * POST /v1/jobs/{id}/messages with an Idempotency-Key, through the real server and the scripted
 * model: a repeat with the same body delivers nothing again and answers the first delivery with
 * the job as it is now (header `Idempotent-Replayed: true`) — here an answer that resumed the job,
 * replayed after the job finished; another body, or the key on another job, is 409
 * `idempotency_key_reused` naming the job.
 */
import { describe, expect, it } from 'vitest';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { validateResponse } from '../e2e/support/spec.js';
import { heldWork } from '../e2e/support/held-work.js';
import { job, waitFor } from './support.js';

const harness = useScriptedService();

describe('a message to a job with an Idempotency-Key', () => {
  it('is delivered once; a repeat answers the first delivery with the job as it is now; another body is 409', async () => {
    const jobId = await heldWork(harness, 'idem', 'jobs-idem').waitingJob('done with notes.txt');

    const key = { 'idempotency-key': 'answer-once' };
    const send = (id: string, text: string) => api(harness.svc.url, 'POST', `/v1/jobs/${id}/messages`, { message: text }, key);
    const first = await send(jobId, 'notes.txt');
    expect(first.status).toBe(202);
    expect(first.body.delivery).toBe('answer');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    await waitFor(async () => ((await job(harness.svc.url, jobId)).status === 'succeeded' ? true : undefined), 30_000);

    const replay = await send(jobId, 'notes.txt');
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    // The first delivery, and the job now (not the status it had when the answer arrived).
    expect(replay.body).toMatchObject({ delivery: 'answer', job: { id: jobId, status: 'succeeded', output_text: 'done with notes.txt' } });
    expect(validateResponse('/v1/jobs/{id}/messages', 'post', 202, replay.body)).toEqual([]);

    const other = await send(jobId, 'other.txt');
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: 'idempotency_key_reused', details: { job_id: jobId } });
    const events = (await readSse(`${harness.svc.url}/v1/jobs/${jobId}/events`)).events.filter((e) => e.event === 'job.message');
    expect(events.map((e) => e.json.message)).toEqual(['notes.txt']);
    // Without a key nothing is replayed: a finished job refuses the message.
    expect((await api(harness.svc.url, 'POST', `/v1/jobs/${jobId}/messages`, { message: 'notes.txt' })).status).toBe(409);
  }, 90_000);
});
