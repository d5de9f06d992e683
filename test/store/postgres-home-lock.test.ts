/**
 * The agent-home lock across instances on a real Postgres: two `PgHomeLocks` on two pools stand
 * for two instances.
 */
import { afterEach, expect, it } from 'vitest';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { PgHomeLocks } from '../../src/store/postgres/pg-home-lock.js';
import { describePostgres, freshSchema } from '../support/postgres.js';

const open: PgDatabase[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((d) => d.close()));
});

async function twoInstances(): Promise<[PgHomeLocks, PgHomeLocks, PgDatabase]> {
  const { url } = await freshSchema();
  const [x, y] = [new PgDatabase({ url, max: 4 }), new PgDatabase({ url, max: 4 })];
  open.push(x, y);
  return [new PgHomeLocks(x.pool, { pollMs: 20 }), new PgHomeLocks(y.pool, { pollMs: 20 }), x];
}

/** Resolves to 'held' when `p` settles within `ms`, else 'waiting'. */
const settled = (p: Promise<unknown>, ms = 300) => Promise.race([p.then(() => 'held'), new Promise((r) => setTimeout(() => r('waiting'), ms))]);

describePostgres('agent-home lock across instances (Postgres advisory lock)', () => {
  it('an exclusive holder on one instance keeps the other instance out until it releases', async () => {
    const [a, b] = await twoInstances();
    const release = await a.acquire('agent-1', 'exclusive');
    const stop = new AbortController();
    const shared = b.acquire('agent-1', 'shared', stop.signal);
    expect(await settled(shared)).toBe('waiting');
    stop.abort(new Error('enough'));
    await expect(shared).rejects.toThrow(/gave up waiting/);
    const other = b.acquire('agent-1', 'exclusive');
    expect(await settled(other)).toBe('waiting');
    await release();
    await (await other)();
  });

  it('locks agents independently', async () => {
    const [a, b] = await twoInstances();
    const release = await a.acquire('agent-1', 'exclusive');
    expect(await settled(b.acquire('agent-2', 'exclusive').then((r) => r()))).toBe('held');
    await release();
  });

  it('shared holders on both instances coexist; shared holders of one instance share one connection', async () => {
    const [a, b, pool] = await twoInstances();
    const first = await a.acquire('agent-1', 'shared');
    const more = await Promise.all([a.acquire('agent-1', 'shared'), a.acquire('agent-1', 'shared')]);
    const onB = await b.acquire('agent-1', 'shared');
    expect(pool.pool.totalCount - pool.pool.idleCount).toBe(1);
    const exclusive = b.acquire('agent-1', 'exclusive');
    await first();
    await more[0]();
    expect(await settled(exclusive)).toBe('waiting'); // one shared holder of A and B's own remain
    await more[1]();
    await onB();
    await (await exclusive)();
  });

  it('a waiter whose signal aborts gives up with an Error and frees its connection', async () => {
    const [a, b] = await twoInstances();
    const release = await a.acquire('agent-1', 'exclusive');
    const ac = new AbortController();
    const waiting = b.acquire('agent-1', 'exclusive', ac.signal);
    setTimeout(() => ac.abort(new Error('tool timed out')), 100);
    await expect(waiting).rejects.toThrow(/gave up waiting for the agent home: another instance is using it/);
    await release();
    await (await b.acquire('agent-1', 'exclusive'))();
  });
});

describePostgres('agent-home locks in the service (their own pool)', () => {
  it('locks held by running commands (up to MAX_CONCURRENT_TURNS) leave every connection of the stores pool to the turns', async () => {
    const { url } = await freshSchema();
    const { startTestService } = await import('../e2e/support/service.js');
    const { api } = await import('../e2e/support/service.js');
    const { message, startScriptedResponsesServer } = await import('../support/scripted-responses-server.js');
    const model = await startScriptedResponsesServer();
    const svc = await startTestService({ modelBaseURL: model.baseURL, env: { DATABASE_URL: url, DATABASE_POOL_MAX: '2', MAX_CONCURRENT_TURNS: '3', STREAM_TOKEN_SECRET: 'home-lock-test-secret-0123456789' } });
    try {
      const locks = svc.services.registry.homeLocks!;
      const held = await Promise.all(['agent-a', 'agent-b', 'agent-c'].map((agent) => locks.acquire(agent, 'exclusive')));
      // Both connections of the stores pool can still be had at once (with the locks on it, none could).
      const stores = svc.services.stores.pg!.pool;
      const both = await Promise.all([stores.connect(), stores.connect()]);
      for (const c of both) c.release();
      const lockSessions = await stores.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'turn-service home locks' AND datname = current_database()`);
      expect(lockSessions.rows[0].n).toBe(3);
      model.push({ output: [message('still served')] });
      const t0 = Date.now();
      const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
      expect(turn.body).toMatchObject({ status: 'completed', output_text: 'still served' });
      expect(Date.now() - t0).toBeLessThan(4000); // not after a 5 s wait for a connection
      for (const release of held) await release();
    } finally {
      await svc.close();
      await model.close();
    }
  });
});
