/**
 * Rounds not checkpointed after them (their calls all succeeded: the event log rebuilds them,
 * src/runtime/round-dispatch.ts `rebuildable`), cut by a SIGKILL of the real service while the
 * next request is in flight: a round whose calls were approved, and a steering message posted
 * meanwhile. After the restart the same input is sent again, nothing runs twice, and the
 * message is applied once.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../../support/scripted-responses-server.js';
import { api } from '../support/service.js';
import { crashRig, waitUntil } from './harness.js';

let model: ScriptedResponsesServer;
beforeAll(async () => {
  model = await startScriptedResponsesServer();
});
afterAll(async () => {
  await model.close();
});

describe('a round the event log rebuilds, cut by a SIGKILL during the next request', () => {
  it('an approved round (todo + write_file, approved) is rebuilt after a crash during the next request', async () => {
    const rig = await crashRig(model.baseURL);
    try {
      await rig.start();
      const first = model.requests.length;
      model.push(
        { output: [functionCall('todo', { todos: [{ id: '1', content: 'save' }] }, { callId: 'c1' }), functionCall('write_file', { path: 'kept.txt', content: 'once' }, { callId: 'c2' })] },
        { output: [message('never delivered')], holdMs: 30_000 },
      );
      const id = await rig.createTurn({ input: 'save', agent_id: 'rebuilt-approved', tools: ['todo', 'computer'], approvals: { write_file: 'always' } });
      await waitUntil(async () => (await rig.turn(id)).status === 'waiting');
      expect((await api(rig.url, 'POST', `/v1/turns/${id}/approvals`, { call_id: 'c2', decision: 'approve' })).status).toBe(200);
      await waitUntil(() => model.requests.length - first === 2);
      await rig.kill();
      model.push({ output: [message('done')] });
      await rig.start();
      expect(await rig.finished(id)).toMatchObject({ status: 'completed', output_text: 'done', usage: null });
      const reqs = model.requests.slice(first);
      expect(reqs).toHaveLength(3);
      expect(reqs[2].body.input).toEqual(reqs[1].body.input);
      expect(readFileSync(path.join(rig.dataDir, 'agents', 'rebuilt-approved', 'home', 'kept.txt'), 'utf8')).toBe('once');
      const all = await rig.events(id);
      expect(all.filter((e) => e.event === 'tool.started').map((e) => e.json.call_id)).toEqual(['c1', 'c2']);
    } finally {
      await rig.dispose();
    }
  }, 400_000);

  it('a steering message posted while the request after a rebuildable round is in flight is applied once after the crash', async () => {
    const rig = await crashRig(model.baseURL);
    try {
      await rig.start();
      const first = model.requests.length;
      model.push(
        { output: [functionCall('todo', { todos: [{ id: '1', content: 'a' }] }, { callId: 's1' })] },
        { output: [message('never delivered')], holdMs: 30_000 },
      );
      const id = await rig.createTurn({ input: 'go', tools: ['todo'] });
      await waitUntil(() => model.requests.length - first === 2);
      expect((await api(rig.url, 'POST', `/v1/turns/${id}/messages`, { content: 'also do b' })).status).toBe(202);
      await rig.kill();
      model.push({ output: [message('after restart')] }, { output: [message('with b')] });
      await rig.start();
      const t = await rig.finished(id);
      const reqs = model.requests.slice(first);
      const texts = (r: any) => (r.body.input as any[]).map((i) => (i.type === 'message' ? `${i.role}:${typeof i.content === 'string' ? i.content : i.content.map((c: any) => c.text).join('')}` : `${i.type}:${i.call_id}`));
      expect(t.status).toBe('completed');
      const all = await rig.events(id);
      expect(all.filter((e) => e.event === 'input.applied')).toHaveLength(1);
      expect(reqs.slice(2).flatMap(texts).filter((x) => x === 'user:also do b').length).toBeGreaterThan(0);
      expect(texts(reqs[2]).slice(0, 3)).toEqual(texts(reqs[1]).slice(0, 3));
    } finally {
      await rig.dispose();
    }
  }, 400_000);
});
