/**
 * Webhooks around background jobs (real service, scripted model, real receiver on loopback):
 * - a job that asks a question or waits for approvals sends `job.waiting_on_user` /
 *   `job.waiting_on_approval` to the webhook of the turn that created it;
 * - the follow-up turns that carry a job's notice into the conversation have the conversation's
 *   webhook: the newest turn's, else the creating turn's;
 * - GET /v1/jobs/{id}/webhooks lists a job's deliveries.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useScriptedService } from '../e2e/support/service.js';
import { validateComponent, validateResponse } from '../e2e/support/spec.js';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { job, lastToolOutput, routedEntries, waitFor } from '../jobs/support.js';
import { startReceiver, type Receiver } from './receiver.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const harness = useScriptedService({ env: { WEBHOOK_SECRET: SECRET, WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } });
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver(SECRET);
});
afterAll(async () => {
  await receiver?.close();
});

/** The verified payloads the receiver got, in order. */
const got = () => receiver.received.map((r) => r.verified);

describe('job webhooks', () => {
  it('a job that asks sends job.waiting_on_user to the creating turn’s webhook, and each notice turn has the conversation’s webhook', async () => {
    const main = 'hooked: deploy something';
    const task = 'hooked task: deploy, asking which branch';
    let jobId = '';
    harness.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('create_background_job', { title: 'Deploy', task })] },
          (body) => {
            jobId = lastToolOutput(body).job_id;
            return { output: [message('Deploy job started.')] };
          },
          { output: [message('The job asks which branch.')] }, // notice turn 1: the job waits on the user
          { output: [message('Noted, something else.')] }, // a turn of the client, without webhook
          { output: [message('Deploy finished.')] }, // notice turn 2: the job succeeded
        ],
        [task]: [
          { output: [functionCall('clarify', { question: 'Which branch should I deploy?' })] },
          { output: [message('Deployed.')] },
        ],
      }),
    );
    const created = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'jobs-hook', tools: ['jobs'], webhook: { url: receiver.url } });
    expect(created.body.status).toBe('completed');

    const waiting = await waitFor(() => got().find((p) => p?.type === 'job.waiting_on_user'), 30_000);
    expect(receiver.received.every((r) => r.verifyError === undefined)).toBe(true);
    expect(waiting.data.job).toMatchObject({ id: jobId, status: 'waiting_on_user', question: 'Which branch should I deploy?', source_turn_id: created.body.id, links: { self: `/v1/jobs/${jobId}` } });
    expect(waiting.data.event).toMatchObject({ type: 'job.waiting_on_user', job_id: jobId, question: 'Which branch should I deploy?' });
    expect(validateComponent('JobWebhookPayload', waiting)).toEqual([]);
    // The job lists its delivery with the attempt, in the shape of the other delivery lists.
    await expect.poll(async () => (await api(harness.svc.url, 'GET', `/v1/jobs/${jobId}/webhooks`)).body.data[0]?.state).toBe('delivered');
    const listed = await api(harness.svc.url, 'GET', `/v1/jobs/${jobId}/webhooks`);
    expect(listed.body.data).toMatchObject([{ event_type: 'job.waiting_on_user', url: receiver.url, attempts: [{ attempt: 1, status: 200, error: null }] }]);
    expect(validateResponse('/v1/jobs/{id}/webhooks', 'get', 200, listed.body)).toEqual([]);
    const unknown = await api(harness.svc.url, 'GET', '/v1/jobs/no-such-job/webhooks');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');

    // The notice of the question reaches the conversation as a follow-up turn with the creating turn's webhook.
    const notice1 = await waitFor(() => got().find((p) => p?.type === 'turn.completed' && p.data.turn.origin.type === 'background_job'), 30_000);
    expect(notice1.data.turn).toMatchObject({ previous_turn_id: created.body.id, output_text: 'The job asks which branch.', origin: { job_id: jobId } });

    // The client continues without a webhook; the job's outcome continues that turn, with the creating turn's webhook.
    const plain = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'something else', agent_id: 'jobs-hook', tools: ['jobs'], previous_turn_id: notice1.data.turn.id });
    expect(plain.body.status).toBe('completed');
    const answered = await api(harness.svc.url, 'POST', `/v1/jobs/${jobId}/messages`, { message: 'main' });
    expect(answered.status).toBe(202);
    const notice2 = await waitFor(() => got().find((p) => p?.type === 'turn.completed' && p.data.turn.previous_turn_id === plain.body.id), 30_000);
    expect(notice2.data.turn).toMatchObject({ output_text: 'Deploy finished.', origin: { type: 'background_job', job_id: jobId } });
    // The client's own turn without a webhook sent nothing.
    expect(got().filter((p) => p?.data.turn?.id === plain.body.id)).toEqual([]);
  }, 90_000);

  it('a job waiting for approvals sends job.waiting_on_approval listing the calls; a creating turn whose events leave it out gets none', async () => {
    const run = async (prompt: string, events?: string[]) => {
      const task = `${prompt} task`;
      let jobId = '';
      harness.model.push(
        ...routedEntries({
          [prompt]: [
            { output: [functionCall('create_background_job', { title: 'Approved work', task, notify: false })] },
            (body) => {
              jobId = lastToolOutput(body).job_id;
              return { output: [message('job started')] };
            },
          ],
          [task]: [{ output: [functionCall('command', { command: 'echo approved-run' }, { callId: 'call_cmd' })] }],
        }),
      );
      const created = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: prompt, agent_id: 'jobs-hook-approve', tools: ['jobs', 'computer'], approvals: { command: 'always' }, webhook: { url: receiver.url, ...(events ? { events } : {}) } });
      expect(created.body.status).toBe('completed');
      await waitFor(async () => ((await job(harness.svc.url, jobId)).status === 'waiting_on_approval' ? true : undefined), 30_000);
      return { jobId, turnId: created.body.id as string };
    };
    const filtered = await run('hooked approvals, completed only', ['turn.completed']);
    const hooked = await run('hooked approvals');
    const sent = await waitFor(() => got().find((p) => p?.type === 'job.waiting_on_approval' && p.data.job.id === hooked.jobId), 30_000);
    expect(sent.data.event).toMatchObject({ type: 'job.waiting_on_approval', job_id: hooked.jobId, approvals: [{ call_id: 'call_cmd', name: 'command' }] });
    expect(sent.data.job).toMatchObject({ status: 'waiting_on_approval', source_turn_id: hooked.turnId, pending_approvals: [{ call_id: 'call_cmd', name: 'command' }] });
    expect(validateComponent('JobWebhookPayload', sent)).toEqual([]);
    // The turn whose webhook asked for turn.completed only got that, and no job event.
    expect(got().filter((p) => p?.data.job?.id === filtered.jobId)).toEqual([]);
    expect(got().filter((p) => p?.data.turn?.id === filtered.turnId).map((p) => p.type)).toEqual(['turn.completed']);
    for (const id of [filtered.jobId, hooked.jobId]) await api(harness.svc.url, 'POST', `/v1/jobs/${id}/stop`);
  }, 90_000);
});
