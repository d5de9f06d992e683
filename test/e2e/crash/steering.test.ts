/**
 * Steering survives a real process restart: a message stored while a command runs, then the
 * service is killed with SIGKILL and started again on the same DATA_DIR — the message is applied
 * exactly once (one `input.applied`, once in the next model request), after the cut round.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../../support/scripted-responses-server.js';
import { api } from '../support/service.js';
import { crashRig, pairing } from './harness.js';

let model: ScriptedResponsesServer;
beforeAll(async () => {
  model = await startScriptedResponsesServer();
});
afterAll(async () => {
  await model.close();
});

const userCount = (input: { role?: string; content?: unknown }[], text: string) =>
  input.filter((i) => i.role === 'user' && JSON.stringify(i.content).includes(text)).length;

describe('steering across a SIGKILL', () => {
  it('a message stored during a command is applied once after the restart, before the next model request', async () => {
    const rig = await crashRig(model.baseURL);
    try {
      await rig.start();
      const first = model.requests.length;
      model.push({ output: [functionCall('command', { command: 'sleep 60' }, { callId: 'call_long' })] });
      const id = await rig.createTurn({ input: 'run the long job', tools: ['computer'] });
      await rig.events(id, { stopWhen: (e) => e.event === 'tool.started' });
      const sent = await api(rig.url, 'POST', `/v1/turns/${id}/messages`, { content: 'Stop waiting and summarise.' });
      expect(sent.status).toBe(202);
      await rig.kill();

      model.push({ output: [message('Summary: the job was interrupted.')] });
      await rig.start();
      expect(await rig.finished(id)).toMatchObject({ status: 'completed', output_text: 'Summary: the job was interrupted.' });

      const reqs = model.requests.slice(first).map((r) => r.body.input as any[]);
      expect(reqs).toHaveLength(2);
      expect(userCount(reqs[0], 'Stop waiting')).toBe(0);
      expect(userCount(reqs[1], 'Stop waiting and summarise.')).toBe(1);
      expect(pairing(reqs[1]).calls).toEqual(pairing(reqs[1]).outputs);
      const out = reqs[1].findIndex((i) => i.type === 'function_call_output' && i.call_id === 'call_long');
      expect(reqs[1][out + 1]).toMatchObject({ role: 'user' });

      const all = await rig.events(id);
      const applied = all.filter((e) => e.event === 'input.applied');
      expect(applied.map((e) => e.json.message_id)).toEqual([sent.body.message_id]);
      expect(all.filter((e) => e.event === 'input.queued').map((e) => e.json.message_id)).toEqual([sent.body.message_id]);
      expect(all.findIndex((e) => e.event === 'input.applied')).toBeGreaterThan(all.findIndex((e) => e.event === 'turn.resumed'));
      await rig.kill(); // the running service holds its database exclusively
      expect(rig.sql('SELECT seq, applied_at IS NOT NULL AS applied FROM turn_inputs WHERE turn_id = ?', id)).toEqual([{ seq: 1, applied: 1 }]);
    } finally {
      await rig.dispose();
    }
  }, 400_000);
});
