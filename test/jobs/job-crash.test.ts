/**
 * A background job survives a crash: the real service process is killed with SIGKILL while the
 * job's turn streams a model answer (after the main turn that created it has answered), and
 * started again on the same DATA_DIR. The job's turn resumes from its checkpoint (same turn, a
 * `turn.resumed` event), the job succeeds without a second start, and the owner still gets the
 * follow-up turn with the outcome.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { crashRig } from '../e2e/crash/harness.js';
import { lastToolOutput, messageTexts, routedEntries, waitFor } from './support.js';

let model: ScriptedResponsesServer;
beforeAll(async () => {
  model = await startScriptedResponsesServer();
});
afterAll(async () => {
  await model.close();
});

describe('a background job whose service is killed with SIGKILL', () => {
  it('resumes its turn after the restart, succeeds once and tells the owner', async () => {
    const rig = await crashRig(model.baseURL);
    const main = 'crash: start a job';
    const task = 'crash task: write a mark, then report slowly';
    const slow = 'one two three four five six seven eight nine ten eleven twelve';
    let jobId = '';
    try {
      await rig.start();
      model.push(
        ...routedEntries({
          [main]: [
            { output: [functionCall('create_background_job', { title: 'Crash me', task })] },
            (body) => {
              jobId = lastToolOutput(body).job_id;
              return { output: [message('job started')] };
            },
            (body) => ({ output: [message(messageTexts(body, 'developer').at(-1)?.includes('succeeded') ? 'told: succeeded' : 'told: ?')] }),
          ],
          [task]: [
            { output: [functionCall('command', { command: 'echo marked > mark.txt' })] },
            { output: [message(slow, { chunks: slow.split(' ').map((w) => `${w} `) })], delayMs: 250 },
            { output: [message('report after the restart')] },
          ],
        }),
      );
      const created = await api(rig.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'jobs-crash', tools: ['jobs'] });
      expect(created.body).toMatchObject({ status: 'completed', output_text: 'job started' });
      const started = await waitFor(async () => {
        const j = (await api(rig.url, 'GET', `/v1/jobs/${jobId}`)).body;
        return j.turn_ids?.length === 1 ? j : undefined;
      }, 60_000);
      const jobTurn = started.turn_ids[0];
      // Kill while the job's second model answer is streaming.
      await readSse(`${rig.url}/v1/turns/${jobTurn}/events`, { stopWhen: (e) => e.event === 'message.delta', timeoutMs: 120_000 });
      await rig.kill();
      await rig.start();

      const done = await waitFor(async () => {
        const j = (await api(rig.url, 'GET', `/v1/jobs/${jobId}`)).body;
        return j.status === 'succeeded' ? j : undefined;
      }, 120_000);
      expect(done).toMatchObject({ attempts: 1, turn_ids: [jobTurn], output_text: 'report after the restart' });
      const turnEvents = (await readSse(`${rig.url}/v1/turns/${jobTurn}/events`, { timeoutMs: 60_000 })).events.map((e) => e.event);
      expect(turnEvents.filter((t) => t === 'turn.resumed')).toHaveLength(1);
      expect(turnEvents.filter((t) => t === 'tool.completed')).toHaveLength(1); // the command ran once
      const jobEvents = (await readSse(`${rig.url}/v1/jobs/${jobId}/events`, { timeoutMs: 60_000 })).events.map((e) => e.event);
      expect(jobEvents.filter((t) => t === 'job.started')).toHaveLength(1);
      expect(jobEvents.at(-1)).toBe('job.succeeded');
      const followUp = await waitFor(async () => {
        const turns = (await api(rig.url, 'GET', '/v1/turns?agent_id=jobs-crash&limit=50')).body.data as any[];
        return turns.find((t) => t.origin.type === 'background_job' && t.kind === 'main' && t.status === 'completed');
      }, 120_000);
      expect(followUp.output_text).toBe('told: succeeded');
    } finally {
      await rig.dispose();
    }
  }, 400_000);
});
