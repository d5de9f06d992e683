/**
 * A turn waiting for approval is stored state, not a held process: the real service process is
 * killed with SIGKILL while the turn waits, started again on the same DATA_DIR, and a decision
 * made after the restart resumes the turn from its checkpoint — the approved call runs once, the model is never asked the same
 * round twice, and a client resuming the stream with Last-Event-ID sees every event once.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../../support/scripted-responses-server.js';
import { api } from '../support/service.js';
import { crashRig, pairing, waitUntil } from './harness.js';

let model: ScriptedResponsesServer;
beforeAll(async () => {
  model = await startScriptedResponsesServer();
});
afterAll(async () => {
  await model.close();
});

describe('a turn waiting for approval across a SIGKILL', () => {
  it('is still waiting after the restart; approving it then runs the call once and completes the turn', async () => {
    const rig = await crashRig(model.baseURL);
    try {
      await rig.start();
      const requestsAtStart = model.requests.length;
      model.push(
        {
          output: [
            functionCall('todo', { todos: [{ id: '1', content: 'save the notes', status: 'in_progress' }] }, { callId: 'call_k1' }),
            functionCall('write_file', { path: 'kept.txt', content: 'survived' }, { callId: 'call_k2' }),
          ],
        },
        { output: [message('saved after the restart')] },
      );
      const id = await rig.createTurn({ input: 'save my notes', agent_id: 'crash-appr', tools: ['todo', 'computer'], approvals: { write_file: 'always' } });
      const before = await rig.events(id, { stopWhen: (e) => e.event === 'approval.requested' });
      await waitUntil(async () => (await rig.turn(id)).status === 'waiting');
      // The call that needed no approval already ran; the other waits.
      await waitUntil(async () => (await rig.events(id, { stopWhen: (e) => e.event === 'tool.completed' })).some((e) => e.json.call_id === 'call_k1'));
      await rig.kill();

      await rig.start();
      const after = await rig.turn(id);
      expect(after.status).toBe('waiting');
      expect(after.pending_approvals).toEqual([expect.objectContaining({ call_id: 'call_k2', name: 'write_file', status: 'pending' })]);
      expect(existsSync(path.join(rig.dataDir, 'agents', 'crash-appr', 'home', 'kept.txt'))).toBe(false);

      const d = await api(rig.url, 'POST', `/v1/turns/${id}/approvals`, { call_id: 'call_k2', decision: 'approve' });
      expect(d.status).toBe(200);
      const turn = await rig.finished(id);
      expect(turn).toMatchObject({ status: 'completed', output_text: 'saved after the restart', pending_approvals: [] });
      expect(readFileSync(path.join(rig.dataDir, 'agents', 'crash-appr', 'home', 'kept.txt'), 'utf8')).toBe('survived');

      // Two model requests in all: the round was not asked again; both calls answered once, in order.
      const mine = model.requests.slice(requestsAtStart);
      expect(mine).toHaveLength(2);
      const input = mine[1].body.input as { type?: string; call_id?: string }[];
      const p = pairing(input);
      expect(p.outputs).toEqual(p.calls);
      expect(input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id)).toEqual(['call_k1', 'call_k2']);

      // The stream continues after the restart without a gap or a repeat.
      const lastSeen = Number(before.at(-1)!.id);
      const rest = await rig.events(id, { after: lastSeen });
      const all = await rig.events(id);
      expect(all.map((e) => Number(e.id))).toEqual(all.map((_, i) => i + 1));
      expect(rest.map((e) => Number(e.id))).toEqual(rest.map((_, i) => lastSeen + i + 1));
      const types = all.map((e) => e.event);
      expect(types.filter((t) => t === 'approval.requested')).toHaveLength(1);
      expect(types.filter((t) => t === 'turn.resumed')).toHaveLength(1);
      expect(all.filter((e) => e.event === 'tool.started').map((e) => e.json.call_id)).toEqual(['call_k1', 'call_k2']);
      expect(types.indexOf('approval.resolved')).toBeLessThan(types.indexOf('turn.resumed'));
      expect(types.at(-1)).toBe('turn.completed');
    } finally {
      await rig.dispose();
    }
  }, 400_000);

  it('rejected right after a restart (policy from APPROVAL_POLICY): the turn resumes and the model reads the rejection', async () => {
    const rig = await crashRig(model.baseURL, { APPROVAL_POLICY: 'write_file=always' });
    try {
      await rig.start();
      model.push(
        { output: [functionCall('write_file', { path: 'no.txt', content: 'no' }, { callId: 'call_n1' })] },
        (body) => ({ output: [message(String((body.input as any[]).find((i) => i.type === 'function_call_output')?.output))] }),
      );
      const id = await rig.createTurn({ input: 'write no', agent_id: 'crash-appr-2', tools: ['computer'] });
      await rig.events(id, { stopWhen: (e) => e.event === 'approval.requested' });
      await waitUntil(async () => (await rig.turn(id)).status === 'waiting');
      await rig.kill();
      await rig.start();
      const d = await api(rig.url, 'POST', `/v1/turns/${id}/approvals`, { call_id: 'call_n1', decision: 'reject', reason: 'decided after the restart' });
      expect(d.status).toBe(200);
      const turn = await rig.finished(id);
      expect(turn).toMatchObject({ status: 'completed', output_text: 'Error: the user rejected this call: decided after the restart' });
      expect(existsSync(path.join(rig.dataDir, 'agents', 'crash-appr-2', 'home', 'no.txt'))).toBe(false);
    } finally {
      await rig.dispose();
    }
  }, 400_000);
});
