/**
 * Workflows across real service processes on one real Postgres: one instance at a time drives a
 * running workflow (its lease), an instance started meanwhile leaves it alone, another instance
 * takes it over when its driver is SIGKILLed and completes it, and a cancel sent to an instance
 * that does not drive it reaches the driver.
 */
import { expect, it } from 'vitest';
import { functionCall } from '../support/scripted-responses-server.js';
import { describePostgres } from '../support/postgres.js';
import { routedEntries } from '../workflows/support.js';
import { usePgInstances } from './support/pg-instances.js';
import { readSse } from './support/sse-client.js';
import { api } from './support/service.js';

const SCHEMA = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false };

describePostgres('workflows across instances on one Postgres', () => {
  const pg = usePgInstances({ name: 'workflows', env: { TURN_LEASE_MS: '3000' } });
  const startInstance = (name: string) => pg.start(name);

  /** Task `prompt` submits {n} after a slow stream (delayMs per event). */
  const submit = (n: number, delayMs: number) => ({ output: [functionCall('submit_result', { result: { n } })], delayMs });
  const slowSubmit = (prompt: string, n: number, delayMs: number) => ({ [prompt]: [submit(n, delayMs)] });

  async function waitDone(url: string, id: string, ms = 90_000): Promise<{ status: string; tasks: { status: string; result?: unknown }[] }> {
    const end = Date.now() + ms;
    for (;;) {
      const wf = (await api(url, 'GET', `/v1/workflows/${id}`)).body;
      if (wf.status !== 'running' || Date.now() > end) return wf;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('is driven by one instance only: one started while it runs leaves it alone; the other takes it over when its driver is SIGKILLed', async () => {
    const [a, b] = await Promise.all([startInstance('a'), startInstance('b')]);
    pg.model.push(...routedEntries({ ...slowSubmit('lease task 0', 0, 400), ...slowSubmit('lease task 1', 1, 400), ...slowSubmit('lease task 2', 2, 50) }));
    const created = await api(a.url, 'POST', '/v1/workflows', {
      title: 'leased',
      agent_id: 'lease',
      concurrency: 2,
      tasks: [0, 1, 2].map((i) => ({ label: `t${i}`, prompt: `lease task ${i}`, result_schema: SCHEMA })),
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    // A third instance starting now finds the workflow running but held: it must not drive it too.
    const c = await startInstance('c');
    const wf = await waitDone(c.url, id);
    expect(wf.status, JSON.stringify(wf)).toBe('completed');
    expect(wf.tasks.map((t) => t.result)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
    const events = (await readSse(`${b.url}/v1/workflows/${id}/events`, { timeoutMs: 20_000 })).events.map((e) => ({ type: e.event ?? '', data: JSON.parse(e.data) }));
    expect(events.filter((e) => e.type === 'task.started').map((e) => e.data.task_index).sort()).toEqual([0, 1, 2]);
    expect(events.filter((e) => e.type.startsWith('workflow.')).map((e) => e.type)).toEqual(['workflow.started', 'workflow.completed']);
    c.child.proc.kill('SIGKILL');
    await c.child.exited;

    // Now the driver dies mid-run: the other instance takes the workflow (and its task turns) over.
    // Spare steps: wherever the kill lands (mid-stream, mid-tool), a resumed turn may ask again.
    pg.model.push(...routedEntries({ 'takeover task 0': [submit(0, 800), submit(0, 50), submit(0, 50)], 'takeover task 1': [submit(1, 50), submit(1, 50), submit(1, 50)] }));
    const second = await api(a.url, 'POST', '/v1/workflows', {
      title: 'taken over',
      agent_id: 'lease',
      concurrency: 1,
      tasks: [0, 1].map((i) => ({ label: `t${i}`, prompt: `takeover task ${i}`, result_schema: SCHEMA })),
    });
    expect(second.status).toBe(201);
    const sid = second.body.id as string;
    await readSse(`${b.url}/v1/workflows/${sid}/events`, { stopWhen: (e) => e.event === 'task.started', timeoutMs: 30_000 });
    a.child.proc.kill('SIGKILL');
    await a.child.exited;
    const done = await waitDone(b.url, sid);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(done.tasks.map((t) => t.result)).toEqual([{ n: 0 }, { n: 1 }]);
    const after = (await readSse(`${b.url}/v1/workflows/${sid}/events`, { timeoutMs: 20_000 })).events.map((e) => e.event);
    expect(after.filter((e) => e === 'workflow.completed')).toHaveLength(1);
    b.child.proc.kill('SIGKILL');
    await b.child.exited;
  }, 400_000);

  it('a cancel sent to the instance that does not drive the workflow reaches its driver', async () => {
    const [a, b] = await Promise.all([startInstance('d'), startInstance('e')]);
    pg.model.push(...routedEntries({ ...slowSubmit('cancel task 0', 0, 3000) }));
    const created = await api(a.url, 'POST', '/v1/workflows', {
      title: 'cancel me',
      agent_id: 'lease-cancel',
      tasks: [0, 1].map((i) => ({ label: `t${i}`, prompt: `cancel task ${i}`, result_schema: SCHEMA })),
      concurrency: 1,
    });
    const id = created.body.id as string;
    await readSse(`${b.url}/v1/workflows/${id}/events`, { stopWhen: (e) => e.event === 'task.started', timeoutMs: 30_000 });
    const r = await api(b.url, 'POST', `/v1/workflows/${id}/cancel`);
    expect(r.status).toBeLessThan(300);
    const wf = await waitDone(b.url, id, 30_000);
    expect(wf.status).toBe('cancelled');
    expect(wf.tasks.map((t) => t.status)).toEqual(['cancelled', 'cancelled']);
    const events = (await readSse(`${a.url}/v1/workflows/${id}/events`, { timeoutMs: 20_000 })).events.map((e) => e.event);
    expect(events.filter((e) => e === 'workflow.cancelled')).toHaveLength(1);
  }, 300_000);
});
