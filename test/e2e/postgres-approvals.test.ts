/**
 * Tool approvals across two real service processes on one real Postgres: a turn that waits on
 * instance A is decided on instance B after A was killed with SIGKILL, and B continues it from the
 * checkpoint; two clients deciding differently on A and on B at once — one wins, the other 409.
 */
import { expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { describePostgres } from '../support/postgres.js';
import { usePgInstances } from './support/pg-instances.js';
import { readSse } from './support/sse-client.js';
import { api } from './support/service.js';

describePostgres('tool approvals on two instances sharing Postgres', () => {
  const pg = usePgInstances({ name: 'approvals', env: { TURN_LEASE_MS: '3000' } });
  const startInstance = (name: string) => pg.start(name);

  async function waitStatus(url: string, id: string, status: string): Promise<any> {
    const end = Date.now() + 60_000;
    for (;;) {
      const t = (await api(url, 'GET', `/v1/turns/${id}`)).body;
      if (t.status === status) return t;
      if (Date.now() > end) throw new Error(`turn ${id} is ${t.status}, not ${status}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const todoCall = (callId: string) => ({ output: [functionCall('todo', { todos: [{ id: '1', content: 'ship', status: 'in_progress' }] }, { callId })] });

  it('a turn waiting on A (then killed) is approved on B, and B continues it', async () => {
    const [a, b] = await Promise.all([startInstance('a'), startInstance('b')]);
    pg.model.push(todoCall('call_pa1'), { output: [message('shipped from the other instance')] });
    const created = await api(a.url, 'POST', '/v1/turns', { input: 'ship it', tools: ['todo'], approvals: { todo: 'always' } });
    expect(created.status).toBe(202);
    const id = created.body.id as string;
    await readSse(`${b.url}/v1/turns/${id}/events`, { stopWhen: (e) => e.event === 'approval.requested', timeoutMs: 60_000 });
    const waiting = await waitStatus(b.url, id, 'waiting');
    expect(waiting.pending_approvals.map((p: any) => p.call_id)).toEqual(['call_pa1']);
    a.child.proc.kill('SIGKILL');
    await a.child.exited;

    const d = await api(b.url, 'POST', `/v1/turns/${id}/approvals`, { call_id: 'call_pa1', decision: 'approve' });
    expect(d.status).toBe(200);
    const done = await waitStatus(b.url, id, 'completed');
    expect(done.output_text).toBe('shipped from the other instance');
    const all = (await readSse(`${b.url}/v1/turns/${id}/events`, { timeoutMs: 30_000 })).events;
    expect(all.map((e) => Number(e.id))).toEqual(all.map((_, i) => i + 1));
    const types = all.map((e) => e.event);
    expect(types.slice(types.indexOf('approval.requested'))).toEqual([
      'approval.requested', 'approval.resolved', 'turn.resumed', 'tool.started', 'presentation', 'tool.completed', 'message.delta', 'message.completed', 'turn.completed',
    ]);
    b.child.proc.kill('SIGKILL');
    await b.child.exited;
  }, 300_000);

  it('two clients deciding differently on A and B at once: exactly one decision is recorded, the other gets 409', async () => {
    const [a, b] = await Promise.all([startInstance('c'), startInstance('d')]);
    pg.model.push(todoCall('call_pr1'), { output: [message('decided')] });
    const created = await api(a.url, 'POST', '/v1/turns', { input: 'race', tools: ['todo'], approvals: { todo: 'always' } });
    const id = created.body.id as string;
    await waitStatus(a.url, id, 'waiting');
    const [ra, rb] = await Promise.all([
      api(a.url, 'POST', `/v1/turns/${id}/approvals`, { call_id: 'call_pr1', decision: 'approve' }),
      api(b.url, 'POST', `/v1/turns/${id}/approvals`, { call_id: 'call_pr1', decision: 'reject', reason: 'no' }),
    ]);
    expect([ra.status, rb.status].sort()).toEqual([200, 409]);
    const loser = ra.status === 409 ? ra.body : rb.body;
    expect(loser.error.code).toBe('approval_conflict');
    await waitStatus(b.url, id, 'completed');
    const all = (await readSse(`${a.url}/v1/turns/${id}/events`, { timeoutMs: 30_000 })).events;
    expect(all.filter((e) => e.event === 'approval.resolved')).toHaveLength(1);
    expect(all.filter((e) => e.event === 'turn.resumed')).toHaveLength(1);
  }, 300_000);
});
