/**
 * The follow-up creation lock across instances on a real Postgres: two `PgFollowUpLock`s (each
 * with its own pool) stand for two instances. The two-process test of what it is for is
 * test/e2e/postgres-steering.test.ts (enqueues sent at once to two instances chain).
 */
import { afterEach, expect, it } from 'vitest';
import { PgFollowUpLock } from '../../src/store/postgres/pg-follow-up-lock.js';
import { describePostgres, freshSchema } from '../support/postgres.js';

const open: PgFollowUpLock[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

async function twoInstances(waitMs?: number): Promise<[PgFollowUpLock, PgFollowUpLock]> {
  const { url } = await freshSchema();
  const pair: [PgFollowUpLock, PgFollowUpLock] = [new PgFollowUpLock({ url, waitMs }), new PgFollowUpLock({ url, waitMs })];
  open.push(...pair);
  return pair;
}

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

describePostgres('follow-up creation lock across instances (Postgres advisory lock)', () => {
  it('runs one agent\'s creations one at a time across instances, and other agents beside them', async () => {
    const [a, b] = await twoInstances();
    const order: string[] = [];
    const first = gate();
    const inA = gate();
    const runA = a.run('agent-1', async () => {
      order.push('a start');
      inA.open();
      await first.opened;
      order.push('a end');
      return 'a';
    });
    await inA.opened;
    const runB = b.run('agent-1', async () => {
      order.push('b start');
      return 'b';
    });
    // Another agent is not held up by agent-1's holder.
    expect(await b.run('agent-2', async () => 'other')).toBe('other');
    await new Promise((r) => setTimeout(r, 200));
    expect(order).toEqual(['a start']);
    first.open();
    expect(await Promise.all([runA, runB])).toEqual(['a', 'b']);
    expect(order).toEqual(['a start', 'a end', 'b start']);
  });

  it('a creation waiting longer than waitMs for another instance is 503 follow_up_busy and never runs', async () => {
    const [a, b] = await twoInstances(300);
    const release = gate();
    const inA = gate();
    const runA = a.run('agent-1', async () => {
      inA.open();
      await release.opened;
    });
    await inA.opened;
    let ran = false;
    await expect(b.run('agent-1', async () => void (ran = true))).rejects.toMatchObject({ status: 503, code: 'follow_up_busy' });
    expect(ran).toBe(false);
    release.open();
    await runA;
    // Free again: the next creation runs.
    expect(await b.run('agent-1', async () => 'next')).toBe('next');
  });

  it('a creation that throws lets the lock go', async () => {
    const [a, b] = await twoInstances(2000);
    await expect(a.run('agent-1', async () => Promise.reject(new Error('insert failed')))).rejects.toThrow('insert failed');
    expect(await b.run('agent-1', async () => 'after')).toBe('after');
  });
});
