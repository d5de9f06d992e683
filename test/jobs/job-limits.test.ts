/**
 * Background job slots and control, through the HTTP API with the scripted model and real
 * `sleep` commands in the bubblewrap sandbox: with BACKGROUND_JOBS_MAX_RUNNING_PER_AGENT at its
 * default (3) the 4th job of an agent stays queued while three run; a message to it with
 * `wait_reply` times out (reply_ready false, timed_out, delivered anyway); stopping a running job
 * aborts its command at once and frees the slot, so the 4th starts and gets the queued message as
 * its second user message.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message, type ResponsesRequestBody } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { job, lastToolOutput, messageTexts, routedEntries, waitFor } from './support.js';

const harness = useScriptedService();

describe('background job slots', () => {
  it('keeps the 4th job of an agent queued, times a reply wait out, and stop aborts a running command and frees the slot', async () => {
    const main = 'limits: start four long jobs';
    const tasks = [1, 2, 3, 4].map((i) => `limits task ${i}: sleep long`);
    const ids: string[] = [];
    let timedOut: any;
    let fourthFirstRequest: ResponsesRequestBody | undefined;
    const sleepLong = { output: [functionCall('command', { command: 'sleep 60; echo never' })] };
    harness.model.push(
      ...routedEntries({
        [main]: [
          { output: tasks.map((task, i) => functionCall('create_background_job', { title: `Long ${i + 1}`, task })) },
          (body) => {
            ids.push(...(body.input as any[]).filter((i) => i.type === 'function_call_output').map((i) => JSON.parse(i.output).job_id));
            return { output: [message('four jobs started')] };
          },
          () => ({ output: [functionCall('send_message_to_background_job', { job_id: ids[3], message: 'hello while queued', wait_timeout_ms: 10_000 })] }),
          (body) => {
            timedOut = lastToolOutput(body);
            return { output: [message('no reply yet')] };
          },
        ],
        [tasks[0]]: [sleepLong],
        [tasks[1]]: [sleepLong],
        [tasks[2]]: [sleepLong],
        [tasks[3]]: [
          (body) => {
            fourthFirstRequest = body;
            return sleepLong;
          },
        ],
      }),
    );
    const first = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'jobs-limits', tools: ['jobs'] });
    expect(first.body).toMatchObject({ status: 'completed', output_text: 'four jobs started' });
    expect(ids).toHaveLength(4);
    // Three run (each in its sleep), the 4th waits for a slot.
    await waitFor(async () => {
      const all = await Promise.all(ids.map((id) => job(harness.svc.url, id)));
      return all.slice(0, 3).every((j) => j.status === 'running' && j.turn_ids.length === 1) || undefined;
    }, 30_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await job(harness.svc.url, ids[3])).status).toBe('queued');

    const second = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'message the 4th', previous_turn_id: first.body.id, agent_id: 'jobs-limits', tools: ['jobs'] });
    expect(second.body.status).toBe('completed');
    expect(timedOut).toMatchObject({ job_id: ids[3], delivery: 'queued', reply_ready: false, wait_outcome: 'timed_out', status: 'queued' });
    expect(timedOut.note).toMatch(/do not resend/);
    expect((await job(harness.svc.url, ids[3])).pending_messages).toBe(1);

    // Stop the first job: its command is aborted, the job and its turn end, and the 4th takes the slot.
    const running = await job(harness.svc.url, ids[0]);
    const turnStream = readSse(`${harness.svc.url}/v1/turns/${running.turn_ids[0]}/events`, { timeoutMs: 30_000 });
    const stopAt = Date.now();
    const stopped = await api(harness.svc.url, 'POST', `/v1/jobs/${ids[0]}/stop`);
    expect(stopped.body.status).toBe('stopped');
    const events = (await turnStream).events;
    const completed = events.find((e) => e.event === 'tool.completed')!.json;
    expect(completed.label).toBe('Stopped `sleep 60; echo never`');
    expect(events.at(-1)!.event).toBe('turn.cancelled');
    expect(Date.now() - stopAt).toBeLessThan(30_000); // long before the 60 s sleep could have ended
    expect((await api(harness.svc.url, 'GET', `/v1/turns/${running.turn_ids[0]}`)).body.status).toBe('cancelled');
    // Stopping again is a no-op.
    expect((await api(harness.svc.url, 'POST', `/v1/jobs/${ids[0]}/stop`)).body.status).toBe('stopped');

    await waitFor(() => fourthFirstRequest, 30_000);
    expect(messageTexts(fourthFirstRequest!, 'user')).toEqual([tasks[3], 'hello while queued']);
    const fourth = await waitFor(async () => {
      const j = await job(harness.svc.url, ids[3]);
      return j.status === 'running' ? j : undefined;
    });
    expect(fourth.pending_messages).toBe(0);
    for (const id of ids.slice(1)) expect((await api(harness.svc.url, 'POST', `/v1/jobs/${id}/stop`)).body.status).toBe('stopped');
    const jobEvents = (await readSse(`${harness.svc.url}/v1/jobs/${ids[0]}/events`)).events.map((e) => e.event);
    expect(jobEvents.at(-1)).toBe('job.stopped');
    // Stopping tells nobody: no follow-up turn was started.
    await new Promise((r) => setTimeout(r, 1500));
    const turns = (await api(harness.svc.url, 'GET', '/v1/turns?agent_id=jobs-limits&limit=100')).body.data as any[];
    expect(turns.filter((t) => t.kind === 'main' && t.origin.type === 'background_job')).toEqual([]);
  }, 120_000);
});
