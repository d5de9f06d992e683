/**
 * A run whose heartbeat finds its turn's lease held by someone else stops, and says so in its log:
 * the lease is taken over in the database itself (as another instance's claim would), while the
 * turn waits for the model's answer. The run stores nothing more; once the lease is free again, the instance
 * claims the turn and resumes it from its checkpoint. One real service process, one real Postgres.
 */
import { expect, it } from 'vitest';
import { message } from '../support/scripted-responses-server.js';
import { describePostgres, freshSchema, queryOnce } from '../support/postgres.js';
import { usePgInstances } from './support/pg-instances.js';
import { api } from './support/service.js';

describePostgres('a turn lease taken over while the run waits for the model', () => {
  let url = '';
  const instances = usePgInstances({
    name: 'lease-taken',
    env: { TURN_LEASE_MS: '3000' },
    databaseUrl: async () => (url = (await freshSchema()).url),
  });

  const sql = <R extends object>(text: string, params: unknown[]) => queryOnce<R>(url, text, params);

  async function until(what: string, ok: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await ok())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${instances.children.map((c) => c.output()).join('\n')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('stops the run when the heartbeat finds the lease held by another owner, logs why, and resumes the turn once the lease is free', async () => {
    const a = await instances.start('a', { env: { LOG_LEVEL: 'info' } });
    // The first answer is held back 5 s: the run writes nothing meanwhile, so its heartbeat (every
    // second) is what finds the lease gone — not a refused write.
    instances.model.push({ output: [message('never streamed')], holdMs: 5000 }, { output: [message('resumed answer')] });
    const created = await api(a.url, 'POST', '/v1/turns', { input: 'stream slowly' });
    expect(created.status).toBe(202);
    const id = created.body.id as string;
    const types = async () => (await sql<{ type: string }>('SELECT type FROM event_log WHERE stream_id = $1 ORDER BY seq', [id])).map((r) => r.type);
    await until('the model request', () => instances.model.requests.length === 1);

    // Another owner takes the lease (with a new claim epoch), as a claim by another instance would.
    await sql(`UPDATE turns SET owner = 'intruder', lease_epoch = lease_epoch + 1, lease_until = $2 WHERE id = $1`, [id, Date.now() + 60_000]);
    await until('the run to stop', () => a.child.output().includes("no longer holds the turn's lease (the heartbeat"));
    const stopped = (await types()).length;
    await new Promise((r) => setTimeout(r, 5000)); // past the held answer
    expect((await types()).length).toBe(stopped); // nothing more from the stopped run
    expect(await types()).not.toContain('message.delta');

    // The lease is free again: the instance claims the turn and resumes it.
    await sql(`UPDATE turns SET owner = NULL, lease_until = 0 WHERE id = $1`, [id]);
    await until('the turn to complete', async () => (await api(a.url, 'GET', `/v1/turns/${id}`)).body.status === 'completed');
    const after = await types();
    expect(after.slice(stopped)).toContain('turn.resumed');
    expect(after.at(-1)).toBe('turn.completed');
    expect((await api(a.url, 'GET', `/v1/turns/${id}`)).body.output_text).toBe('resumed answer');
    expect(instances.model.requests).toHaveLength(2);
  }, 60_000);
});
