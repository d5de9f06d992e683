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
