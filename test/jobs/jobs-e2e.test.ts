/**
 * Background jobs through the HTTP API with the scripted model (the real openai SDK over
 * loopback) and real commands in the bubblewrap sandbox: a main turn hands work to a job and
 * answers at once; the job keeps running `sleep`-based work, succeeds, and the owner is told by a
 * follow-up turn; a job that asks a question waits (slot released), is answered with
 * send_message_to_background_job and resumes, and the tool returns its reply.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { job, lastToolOutput, messageTexts, routedEntries, turnsOf, waitFor } from './support.js';

const harness = useScriptedService();

describe('background jobs', () => {
  it('outlive the turn that created them: the job succeeds after the turn answered, and a follow-up turn tells the owner', async () => {
    const main = 'e2e: refactor the counter';
    const task = 'e2e task: count to three slowly, then report';
    let jobId = '';
    harness.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('create_background_job', { title: 'Count slowly', task })] },
          (body) => {
            jobId = lastToolOutput(body).job_id;
            return { output: [message('I started a background job for that.')] };
          },
          (body) => ({ output: [message(`The job reported back: ${messageTexts(body, 'developer').at(-1)?.includes('succeeded') ? 'done' : 'unclear'}`)] }),
        ],
        [task]: [
          { output: [functionCall('command', { command: 'for i in 1 2 3; do sleep 1; echo $i; done' })] },
          (body) => ({ output: [message(`Counted: ${String(lastToolOutput(body)).split('\n').slice(1).join(' ').trim()}`)] }),
        ],
      }),
    );
    const created = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'jobs-e2e', tools: ['jobs'] });
    expect(created.body).toMatchObject({ status: 'completed', output_text: 'I started a background job for that.' });
    expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
    const atAnswer = await job(harness.svc.url, jobId);
    expect(['queued', 'running']).toContain(atAnswer.status); // the creating turn answered while the job works

    const stream = await readSse(`${harness.svc.url}/v1/jobs/${jobId}/events`, { timeoutMs: 60_000 });
    const types = stream.events.map((e) => e.event);
    expect(types[0]).toBe('job.created');
    expect(types).toContain('job.started');
    expect(types.at(-1)).toBe('job.succeeded');
    expect(stream.events.at(-1)!.json.output_text).toBe('Counted: 1 2 3');
    const tools = stream.events.filter((e) => e.event === 'job.activity' && e.json.kind === 'tool').map((e) => e.json.label);
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatch(/^Ran `for i in 1 2 3; do sleep 1; echo \$i; done` \(exit 0, [\d.]+ s\)$/);

    const done = await job(harness.svc.url, jobId);
    expect(done).toMatchObject({ status: 'succeeded', title: 'Count slowly', attempts: 1, output_text: 'Counted: 1 2 3', error: null, source_turn_id: created.body.id });
    expect(done.progress).toMatchObject({ steps: 2, tool_calls: 1 });

    // The job's own turn: kind background_job, the job tool set (no jobs, schedule or workflow tools).
    const jobTurn = await api(harness.svc.url, 'GET', `/v1/turns/${done.turn_ids[0]}`);
    expect(jobTurn.body).toMatchObject({ kind: 'background_job', origin: { type: 'background_job', job_id: jobId } });
    const jobTurnEvents = await readSse(`${harness.svc.url}/v1/turns/${done.turn_ids[0]}/events`);
    const started = jobTurnEvents.events[0].json;
    expect(started.tools).toEqual(expect.arrayContaining(['command', 'read_file', 'todo', 'clarify']));
    expect(started.tools.filter((t: string) => /background_job|schedule|workflow/.test(t))).toEqual([]);
    expect(started.unavailable).toContainEqual({ family: 'jobs', reason: 'background jobs cannot start or manage background jobs (one level deep)' });

    // The owner hears of it: a follow-up turn of the creating conversation, with the outcome as a developer message.
    const followUp = await waitFor(async () => (await turnsOf(harness.svc.url, 'jobs-e2e')).find((t) => t.origin.type === 'background_job' && t.kind === 'main' && t.status === 'completed'), 30_000);
    expect(followUp).toMatchObject({ origin: { type: 'background_job', job_id: jobId }, output_text: 'The job reported back: done' });
    const followUpRequest = harness.model.requests.find((r) => messageTexts(r.body, 'developer').some((t) => t.includes(`Background job ${jobId}`)));
    expect(messageTexts(followUpRequest!.body, 'developer').at(-1)).toContain('succeeded. Its result:\n\nCounted: 1 2 3');
    expect(messageTexts(followUpRequest!.body, 'user')[0]).toBe(main); // it continues the creating conversation
  }, 90_000);

  it('waits on a question with its slot released, resumes when answered, and the tool returns the reply', async () => {
    const main = 'e2e: deploy something';
    const task = 'e2e task: deploy, asking which branch';
    let jobId = '';
    let sendResult: any;
    harness.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('create_background_job', { title: 'Deploy', task })] },
          (body) => {
            jobId = lastToolOutput(body).job_id;
            return { output: [message('Deploy job started.')] };
          },
          // Follow-up 1: the job asks; answer it and wait for its reply.
          (body) => ({ output: [functionCall('send_message_to_background_job', { job_id: jobId, message: `branch: main (${messageTexts(body, 'developer').at(-1)?.includes('waiting for an answer') ? 'seen' : 'unseen'})` })] }),
          (body) => {
            sendResult = lastToolOutput(body);
            return { output: [message('Answered the job.')] };
          },
          // Follow-up 2: the job succeeded.
          { output: [message('Deploy finished.')] },
        ],
        [task]: [
          { output: [functionCall('clarify', { question: 'Which branch should I deploy?' })] },
          (body) => ({ output: [message(`Deploying ${messageTexts(body, 'user').at(-1)} now.`)] }),
        ],
      }),
    );
    const created = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'jobs-ask', tools: ['jobs'] });
    expect(created.body.status).toBe('completed');
    const done = await waitFor(async () => {
      const j = await job(harness.svc.url, jobId);
      return j.status === 'succeeded' ? j : undefined;
    }, 60_000);
    expect(done).toMatchObject({ attempts: 2, question: null, output_text: 'Deploying branch: main (seen) now.' });
    expect(done.turn_ids).toHaveLength(2);
    const events = (await readSse(`${harness.svc.url}/v1/jobs/${jobId}/events`)).events.map((e) => [e.event, e.json]);
    const kinds = events.map(([t]) => t);
    expect(kinds.filter((t) => t !== 'job.activity')).toEqual(['job.created', 'job.started', 'job.waiting_on_user', 'job.message', 'job.started', 'job.succeeded']);
    expect(events.find(([t]) => t === 'job.waiting_on_user')![1]).toMatchObject({ question: 'Which branch should I deploy?' });
    expect(events.find(([t]) => t === 'job.message')![1]).toMatchObject({ delivery: 'answer', message: 'branch: main (seen)' });
    expect(sendResult).toMatchObject({ job_id: jobId, delivery: 'answer', reply_ready: true, reply: { kind: 'message', text: 'Deploying branch: main (seen) now.' } });
    // The second start continued the first turn's transcript.
    const second = await api(harness.svc.url, 'GET', `/v1/turns/${done.turn_ids[1]}`);
    expect(second.body.kind).toBe('background_job');
    await waitFor(async () => (await turnsOf(harness.svc.url, 'jobs-ask')).find((t) => t.output_text === 'Deploy finished.'), 30_000);
  }, 90_000);

  it('respawns a finished job once, continuing its transcript; lists jobs by status; an unknown page reference is an error', async () => {
    const main = 'e2e: respawn conversation';
    const task = 'e2e task: write notes';
    let jobId = '';
    const outputs: any[] = [];
    const keep = (body: any) => outputs.push(lastToolOutput(body));
    harness.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('create_background_job', { title: 'Notes', task, notify: false })] },
          (body) => {
            jobId = lastToolOutput(body).job_id;
            return { output: [message('notes job started')] };
          },
          // Second turn: list, respawn twice (the second is refused), list again, unknown page.
          () => ({ output: [functionCall('list_background_jobs', { status: 'stop' })] }),
          (body) => (keep(body), { output: [functionCall('respawn_background_job', { source_job_id: jobId, message: 'now add a summary' })] }),
          (body) => (keep(body), { output: [functionCall('respawn_background_job', { source_job_id: jobId, message: 'again' })] }),
          (body) => (keep(body), { output: [functionCall('list_background_jobs', { page: 'page_9' })] }),
          (body) => (keep(body), { output: [message('respawned')] }),
        ],
        [task]: [
          { output: [message('notes: a, b')] },
          (body) => ({ output: [message(`summary of ${body.input.filter((i: any) => i.role === 'assistant').length} earlier answer(s)`)] }),
        ],
      }),
    );
    const first = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'jobs-respawn', tools: ['jobs'] });
    expect(first.body.status).toBe('completed');
    await waitFor(async () => ((await job(harness.svc.url, jobId)).status === 'succeeded' ? true : undefined), 30_000);
    const second = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'respawn it', previous_turn_id: first.body.id, agent_id: 'jobs-respawn', tools: ['jobs'] });
    expect(second.body).toMatchObject({ status: 'completed', output_text: 'respawned' });
    const [listed, respawned, refused, unknownPage] = outputs;
    expect(listed).toEqual({ jobs: [{ job_id: jobId, title: 'Notes', status: 'succeeded' }], next_page: null });
    expect(respawned).toMatchObject({ status: 'queued', respawned_from: jobId });
    expect(refused).toMatch(/^Error: .*already respawned as /);
    expect(unknownPage).toMatch(/^Error: tool list_background_jobs failed: unknown page "page_9": use a next_page/);
    const next = await waitFor(async () => {
      const j = await job(harness.svc.url, respawned.job_id);
      return j.status === 'succeeded' ? j : undefined;
    }, 30_000);
    expect(next).toMatchObject({ title: 'Notes', respawned_from: jobId, output_text: 'summary of 1 earlier answer(s)' });
    expect((await job(harness.svc.url, jobId)).respawned_to).toBe(respawned.job_id);
  }, 90_000);

  it('steers a running job between its rounds, the tool returns its next reply, and the outcome is steered into the running owner turn', async () => {
    const main = 'e2e: steer a running job';
    const task = 'e2e task: sleep, then answer what you were told';
    let jobId = '';
    let sendResult: any;
    harness.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('create_background_job', { title: 'Steered', task })] },
          (body) => {
            jobId = lastToolOutput(body).job_id;
            return { output: [message('started')] };
          },
          // The second turn messages the running job and waits for its reply.
          () => ({ output: [functionCall('send_message_to_background_job', { job_id: jobId, message: 'use tabs, not spaces' })] }),
          // Its answer streams slowly, so the job's success notice arrives while it runs: one more round.
          (body) => {
            sendResult = lastToolOutput(body);
            return { output: [message('the job replied')], holdMs: 1500 };
          },
          (body) => ({ output: [message(messageTexts(body, 'user').some((t) => t.includes(`Background job ${jobId}`) && t.includes('succeeded')) ? 'and it finished' : 'no notice')] }),
        ],
        [task]: [
          { output: [functionCall('command', { command: 'sleep 3; echo slept' })] },
          (body) => ({ output: [message(`Told: ${messageTexts(body, 'user').at(-1)}`)] }),
        ],
      }),
    );
    const first = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'jobs-steer', tools: ['jobs'] });
    expect(first.body.status).toBe('completed');
    // Wait until the job's command runs, then message it from a second turn of the conversation.
    const running = await waitFor(async () => {
      const j = await job(harness.svc.url, jobId);
      return j.turn_ids?.length === 1 ? j : undefined;
    }, 30_000);
    await readSse(`${harness.svc.url}/v1/turns/${running.turn_ids[0]}/events`, { stopWhen: (e) => e.event === 'tool.started', timeoutMs: 30_000 });
    const second = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'tell the job', previous_turn_id: first.body.id, agent_id: 'jobs-steer', tools: ['jobs'] });
    expect(sendResult).toMatchObject({ job_id: jobId, delivery: 'steering', reply_ready: true, reply: { kind: 'message', text: 'Told: use tabs, not spaces' } });
    expect(sendResult.activity).toEqual([expect.stringMatching(/^✓ Ran `sleep 3; echo slept`/)]);
    expect(second.body).toMatchObject({ status: 'completed', output_text: 'and it finished' });
    const done = await job(harness.svc.url, jobId);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 1, output_text: 'Told: use tabs, not spaces' });
    const events = (await readSse(`${harness.svc.url}/v1/jobs/${jobId}/events`)).events.map((e) => e.json);
    const applied = events.find((e) => e.type === 'job.message_applied');
    expect(events.find((e) => e.type === 'job.message')).toMatchObject({ delivery: 'steering', message_id: applied.message_id });
    // Steered into the running turn: no follow-up turn was started for this job.
    expect((await turnsOf(harness.svc.url, 'jobs-steer')).filter((t) => t.origin.type === 'background_job' && t.kind === 'main')).toEqual([]);
  }, 90_000);

  it('pages a long result through show_background_job_details: segments of at most 8,000 bytes that concatenate to the exact text', async () => {
    const main = 'e2e: read a long result';
    const task = 'e2e task: write a long multi-byte report';
    const report = Array.from({ length: 700 }, (_, i) => `Zeile ${i}: Grüße ✓ 日本 🧪 — `).join('\n');
    const pages = Math.ceil(Buffer.byteLength(report, 'utf8') / 7990) + 1;
    let jobId = '';
    const segments: any[] = [];
    const readNext = (body: any) => {
      const out = lastToolOutput(body);
      if (out && typeof out === 'object' && 'output_text' in out) segments.push(out);
      const next = segments.length === 0 ? 0 : segments.at(-1).next_offset;
      return next === null ? { output: [message(`read ${segments.length} segments`)] } : { output: [functionCall('show_background_job_details', { job_id: jobId, result_offset: next })] };
    };
    harness.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('create_background_job', { title: 'Report', task, notify: false })] },
          (body) => {
            jobId = lastToolOutput(body).job_id;
            return { output: [message('report job started')] };
          },
          () => ({ output: [functionCall('show_background_job_details', { job_id: jobId })] }),
          ...Array.from({ length: pages + 1 }, () => readNext),
        ],
        [task]: [{ output: [message(report)] }],
      }),
    );
    const first = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'jobs-pages', tools: ['jobs'] });
    expect(first.body.status).toBe('completed');
    await waitFor(async () => ((await job(harness.svc.url, jobId)).status === 'succeeded' ? true : undefined), 30_000);
    const second = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'read it', previous_turn_id: first.body.id, agent_id: 'jobs-pages', tools: ['jobs'] });
    expect(second.body.status).toBe('completed');
    expect(segments.length).toBeGreaterThan(2);
    expect(second.body.output_text).toBe(`read ${segments.length} segments`);
    expect(segments.map((p) => p.output_text).join('')).toBe(report);
    for (const p of segments) expect(Buffer.byteLength(p.output_text, 'utf8')).toBeLessThanOrEqual(8000);
    expect(segments.at(-1).next_offset).toBeNull();
  }, 90_000);

  it("keeps the creating turn's approvals: a job's command waits for approval on the job's turn, and runs once approved", async () => {
    const main = 'e2e: a job under approvals';
    const task = 'e2e task: run a command that needs approval';
    let jobId = '';
    harness.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('create_background_job', { title: 'Approved work', task, notify: false })] },
          (body) => {
            jobId = lastToolOutput(body).job_id;
            return { output: [message('job started')] };
          },
        ],
        [task]: [
          { output: [functionCall('command', { command: 'echo approved-run' }, { callId: 'call_cmd' })] },
          (body) => ({ output: [message(`ran: ${String(lastToolOutput(body)).split('\n').slice(1).join('').trim()}`)] }),
        ],
      }),
    );
    const created = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'jobs-approve', tools: ['jobs', 'computer'], approvals: { command: 'always' } });
    expect(created.body.status).toBe('completed');
    const waiting = await waitFor(async () => {
      const j = await job(harness.svc.url, jobId);
      if (j.turn_ids?.length !== 1) return undefined;
      const t = (await api(harness.svc.url, 'GET', `/v1/turns/${j.turn_ids[0]}`)).body;
      return t.status === 'waiting' ? t : undefined;
    }, 30_000);
    expect(waiting.pending_approvals).toMatchObject([{ call_id: 'call_cmd', name: 'command' }]);
    // The job shows that it waits for a person (test/jobs/job-approvals.test.ts covers the rest).
    const shown = await waitFor(async () => {
      const j = await job(harness.svc.url, jobId);
      return j.status === 'waiting_on_approval' ? j : undefined;
    }, 30_000);
    expect(shown.pending_approvals).toMatchObject([{ turn_id: waiting.id, call_id: 'call_cmd', name: 'command' }]);
    const approved = await api(harness.svc.url, 'POST', `/v1/turns/${waiting.id}/approvals`, { call_id: 'call_cmd', decision: 'approve' });
    expect(approved.status).toBe(200);
    const done = await waitFor(async () => {
      const j = await job(harness.svc.url, jobId);
      return j.status === 'succeeded' ? j : undefined;
    }, 30_000);
    expect(done.output_text).toBe('ran: approved-run');
  }, 90_000);
});
