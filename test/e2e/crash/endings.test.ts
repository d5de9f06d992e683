/**
 * Endings after crashes (real service process, SIGKILL, same DATA_DIR): a turn cut by crashes
 * TURN_MAX_CRASHES times at the same step fails with `crash_loop` instead of resuming again; a
 * checkpoint that cannot be read (corrupt, unknown schema version) fails the turn with
 * `resume_failed`; a workflow whose task turn is killed mid-run finishes after the restart with a
 * validated result, from the same task turn (its binding rebuilt from the stored data).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../../support/scripted-responses-server.js';
import { api } from '../support/service.js';
import { firstUserText, routedEntries, SCHEMA } from '../../workflows/support.js';
import { crashRig, waitUntil, type CrashRig } from './harness.js';

let model: ScriptedResponsesServer;
beforeAll(async () => {
  model = await startScriptedResponsesServer();
});
afterAll(async () => {
  await model.close();
});

const held = (ms = 60_000) => ({ output: [message('too late')], holdMs: ms });

/** Start a turn whose model request hangs, and kill the service once the request is in flight. */
async function killDuringRequest(rig: CrashRig, start: () => Promise<void>): Promise<void> {
  const before = model.requests.length;
  model.push(held());
  await start();
  await waitUntil(() => model.requests.length > before);
  await rig.kill();
}

describe('endings after crashes', () => {
  it('fails with crash_loop when the same step was cut by TURN_MAX_CRASHES crashes', async () => {
    const rig = await crashRig(model.baseURL, { TURN_MAX_CRASHES: '2' });
    try {
      await rig.start();
      let id = '';
      await killDuringRequest(rig, async () => {
        id = await rig.createTurn({ input: 'crash me' });
      });
      await killDuringRequest(rig, () => rig.start()); // resumed once (crash 1), cut again
      const requests = model.requests.length;
      await rig.start(); // crash 2 of the same step: not resumed
      const turn = await rig.finished(id);
      expect(turn).toMatchObject({ status: 'failed', error: { code: 'crash_loop', message: expect.stringMatching(/crashed 2 times/) } });
      expect(model.requests.length).toBe(requests);
      const events = await rig.events(id);
      expect(events.at(-1)).toMatchObject({ event: 'turn.failed' });
      const resumed = events.filter((e) => e.event === 'turn.resumed');
      expect(resumed).toHaveLength(1);
      // The message numbers the step as turn.resumed does.
      expect(resumed[0].json.from_step).toBe(0);
      expect(turn.error.message).toContain('from step 0 (turn.resumed from_step 0: 0 model requests done)');
    } finally {
      await rig.dispose();
    }
  }, 400_000);

  it('a turn cut by a crash while a model request was in flight ends with usage null (spent, never reported)', async () => {
    const rig = await crashRig(model.baseURL);
    try {
      await rig.start();
      let id = '';
      await killDuringRequest(rig, async () => {
        id = await rig.createTurn({ input: 'count my tokens' });
      });
      model.push({ output: [message('Counted.')] }); // the request made again after the restart
      await rig.start();
      const turn = await rig.finished(id);
      expect(turn).toMatchObject({ status: 'completed', output_text: 'Counted.', usage: null });
      expect((await rig.events(id)).at(-1)).toMatchObject({ event: 'turn.completed', json: { usage: null } });
    } finally {
      await rig.dispose();
    }
  }, 400_000);

  it('crash_loop during the request after a round not checkpointed after it (the log rebuilds it): a continuation still sees that round\'s call and output', async () => {
    const rig = await crashRig(model.baseURL, { TURN_MAX_CRASHES: '1' });
    try {
      await rig.start();
      const first = model.requests.length;
      model.push(
        { output: [functionCall('todo', { todos: [{ id: '1', content: 'deploy the release' }] }, { callId: 'call_plan' })] },
        { output: [message('never delivered')], holdMs: 30_000 },
      );
      const a = await rig.createTurn({ input: 'plan the release', tools: ['todo'] });
      await rig.events(a, { stopWhen: (e) => e.event === 'tool.completed' });
      await waitUntil(() => model.requests.length - first === 2); // round 2's request is in flight
      await rig.kill();
      await rig.start(); // crash 1 of step 1 with TURN_MAX_CRASHES=1: crash_loop, not resumed
      expect(await rig.finished(a)).toMatchObject({ status: 'failed', error: { code: 'crash_loop' } });
      // The round's call and output are in A's event log...
      const events = await rig.events(a);
      expect(events.filter((e) => e.event === 'tool.completed').map((e) => e.json.call_id)).toEqual(['call_plan']);
      // ...and in its stored transcript, which a continuation starts from.
      const at = model.requests.length;
      model.push({ output: [message('B answer')] });
      const b = await rig.createTurn({ input: 'what did you plan?', previous_turn_id: a, tools: ['todo'] });
      expect(await rig.finished(b)).toMatchObject({ status: 'completed' });
      const input = model.requests[at].body.input as any[];
      expect(input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id)).toEqual(['call_plan']);
    } finally {
      await rig.dispose();
    }
  }, 400_000);

  for (const [what, corrupt] of [
    ['corrupt JSON', '{"$schemaVersion": 1, "steps": '],
    ['an unknown schema version', '{"$schemaVersion": 99}'],
  ] as const) {
    it(`fails with resume_failed when the checkpoint is ${what}`, async () => {
      const rig = await crashRig(model.baseURL);
      try {
        await rig.start();
        let id = '';
        await killDuringRequest(rig, async () => {
          id = await rig.createTurn({ input: `unreadable ${what}` });
        });
        expect(rig.sql('UPDATE turn_checkpoints SET state = ? WHERE turn_id = ?', corrupt, id)).toMatchObject([{ changes: 1 }]);
        const requests = model.requests.length;
        await rig.start();
        const turn = await rig.finished(id);
        expect(turn).toMatchObject({ status: 'failed', error: { code: 'resume_failed', message: expect.stringMatching(/checkpoint cannot be read/) } });
        expect(model.requests.length).toBe(requests);
      } finally {
        await rig.dispose();
      }
    }, 400_000);
  }

  it('finishes a workflow whose task turn was killed mid-run, with a validated result', async () => {
    const rig = await crashRig(model.baseURL);
    try {
      await rig.start();
      const p = 'workflow task killed mid-run';
      const result = { name: 'survived', count: 3, tags: ['kill'] };
      model.push(...routedEntries({ [p]: [held(), { output: [functionCall('submit_result', { result: { name: 1 } })] }, { output: [functionCall('submit_result', { result })] }] }));
      const created = await api(rig.url, 'POST', '/v1/workflows', { title: 'crash', tasks: [{ label: 'l', prompt: p, result_schema: SCHEMA }] });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      await waitUntil(() => model.requests.some((r) => firstUserText(r.body) === p));
      const turnId = (await api(rig.url, 'GET', `/v1/workflows/${id}`)).body.tasks[0].turn_ids[0] as string;
      await rig.kill();
      await rig.start();
      await waitUntil(async () => (await api(rig.url, 'GET', `/v1/workflows/${id}`)).body.status !== 'running', 60_000);
      const wf = (await api(rig.url, 'GET', `/v1/workflows/${id}`)).body;
      expect(wf.status).toBe('completed');
      expect(wf.tasks[0]).toMatchObject({ status: 'succeeded', attempts: 1, result, turn_ids: [turnId] });
      const events = (await rig.events(turnId)).map((e) => e.event);
      expect(events).toContain('turn.resumed');
      expect(events.at(-1)).toBe('turn.completed');
      // The invalid submission was rejected by the rebuilt binding before the valid one.
      const outputs = model.requests.filter((r) => firstUserText(r.body) === p).at(-1)!.body.input.filter((i: any) => i.type === 'function_call_output');
      expect(outputs).toHaveLength(1);
      expect(outputs[0].output).toMatch(/^Error/);
    } finally {
      await rig.dispose();
    }
  }, 400_000);
});
