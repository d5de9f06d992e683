/**
 * Durable turns: the real service process is killed with SIGKILL at each point of a turn —
 * during a model stream, during a read-only tool, during a non-read-only command, between rounds —
 * and started again on the same DATA_DIR. The turn then completes; the model never receives a
 * completed round twice; a side effect is not repeated; every function_call has exactly one
 * function_call_output; and an SSE client reconnecting with Last-Event-ID gets every event once,
 * in order. A continuation chain across a killed turn keeps the whole conversation.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../../support/scripted-responses-server.js';
import { crashRig, expectCutCommandReportedInterrupted, expectCutReadOnlyCallRunAgain, expectSeamlessStream, pairing, waitUntil } from './harness.js';

let model: ScriptedResponsesServer;
beforeAll(async () => {
  model = await startScriptedResponsesServer();
});
afterAll(async () => {
  await model.close();
});

const slowText = (text: string) => ({ output: [message(text, { chunks: text.split(' ').map((w) => `${w} `) })], delayMs: 250 });

describe('a turn killed with SIGKILL resumes on restart', () => {
  it('during a model stream: the cut response is requested again, the stream continues without a gap', async () => {
    const rig = await crashRig(model.baseURL);
    try {
      await rig.start();
      model.push(slowText('one two three four five six seven eight nine ten eleven twelve'));
      const id = await rig.createTurn({ input: 'tell me a story' });
      const before = await rig.events(id, { stopWhen: (e) => e.event === 'message.delta' });
      await rig.kill();
      model.push({ output: [message('the whole story')] });
      await rig.start();
      const turn = await rig.finished(id);
      expect(turn).toMatchObject({ status: 'completed', output_text: 'the whole story' });
      const all = await expectSeamlessStream(rig, id, before);
      expect(all.find((e) => e.event === 'turn.resumed')!.json).toMatchObject({ from_step: 0 });
    } finally {
      await rig.dispose();
    }
  }, 400_000);

  it('during a read-only tool: the tool runs again, the completed model round is not requested again', async () => {
    await expectCutReadOnlyCallRunAgain(model, 'found it', (rig) => rig.kill());
  }, 400_000);

  it('during a non-read-only command: it is not run again and is reported interrupted', async () => {
    await expectCutCommandReportedInterrupted(model, 'crash', (rig) => rig.kill());
  }, 400_000);

  it('between rounds: the finished round is kept, its command is not repeated, the next request is made again', async () => {
    const rig = await crashRig(model.baseURL);
    try {
      await rig.start();
      const first = model.requests.length;
      model.push(
        { output: [functionCall('command', { command: 'echo y >> marker2' }, { callId: 'call_once' })] },
        { output: [message('never delivered')], holdMs: 30_000 },
      );
      const id = await rig.createTurn({ input: 'append once', tools: ['computer'], agent_id: 'crash2' });
      const before = await rig.events(id, { stopWhen: (e) => e.event === 'tool.completed' });
      await waitUntil(() => model.requests.length - first === 2); // round 2's request is in flight
      await rig.kill();
      model.push({ output: [message('all done')] });
      await rig.start();
      // Round 2's request was cut: its tokens were spent and never reported, so usage is unknown
      // (the last checkpoint is round 1's mid-round one: a round the event log rebuilds is not
      // checkpointed again after it).
      expect(await rig.finished(id)).toMatchObject({ status: 'completed', output_text: 'all done', usage: null });
      const requests = model.requests.slice(first);
      expect(requests).toHaveLength(3); // round 1 once; round 2 cut, then made again
      expect(requests[2].body.input).toEqual(requests[1].body.input);
      expect(pairing(requests[2].body.input)).toEqual({ calls: ['call_once'], outputs: ['call_once'] });
      expect(readFileSync(path.join(rig.dataDir, 'agents', 'crash2', 'home', 'marker2'), 'utf8')).toBe('y\n');
      const all = await expectSeamlessStream(rig, id, before);
      expect(all.find((e) => e.event === 'turn.resumed')!.json).toMatchObject({ from_step: 1 });
    } finally {
      await rig.dispose();
    }
  }, 400_000);

  it('a chain J → K (killed mid-turn) → L: L continues the whole conversation', async () => {
    const rig = await crashRig(model.baseURL);
    try {
      await rig.start();
      model.push({ output: [message('J answer')] });
      const j = await rig.createTurn({ input: 'question J' });
      await rig.finished(j);
      model.push(slowText('K part one two three four five six seven eight'));
      const k = await rig.createTurn({ input: 'question K', previous_turn_id: j });
      await rig.events(k, { stopWhen: (e) => e.event === 'message.delta' });
      await rig.kill();
      model.push({ output: [message('K answer')] });
      await rig.start();
      expect(await rig.finished(k)).toMatchObject({ status: 'completed', output_text: 'K answer' });
      const first = model.requests.length;
      model.push({ output: [message('L answer')] });
      const l = await rig.createTurn({ input: 'question L', previous_turn_id: k });
      expect(await rig.finished(l)).toMatchObject({ status: 'completed', output_text: 'L answer' });
      const input = model.requests[first].body.input as any[];
      const texts = input.map((i) => `${i.role}:${typeof i.content === 'string' ? i.content : i.content.map((c: any) => c.text).join('')}`);
      expect(texts).toEqual(['user:question J', 'assistant:J answer', 'user:question K', 'assistant:K answer', 'user:question L']);
    } finally {
      await rig.dispose();
    }
  }, 400_000);
});
