/**
 * A connection the server ends (a restart, `pg_terminate_backend`) while the service holds it
 * checked out — a transaction between two statements, the follow-up lock while its creation runs —
 * crashes nothing: the work on it fails as "database unavailable" (a transaction is never taken
 * as committed) and the pool goes on with new connections. Real Postgres; the backend is really
 * terminated (FATAL 57P01, as in a fast shutdown).
 */
import { afterEach, expect, it } from 'vitest';
import pg from 'pg';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { PgFollowUpLock } from '../../src/store/postgres/pg-follow-up-lock.js';
import { DatabaseUnavailableError } from '../../src/store/postgres/unavailable.js';
import { describePostgres, freshSchema } from '../support/postgres.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** Terminate backend `pid` from a connection of its own (the server sends it FATAL 57P01). */
async function terminate(url: string, pid: number): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [pid]);
    expect(rows[0].ok).toBe(true);
  } finally {
    await c.end();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describePostgres('a connection ended by the server while checked out', () => {
  it('fails its transaction as database_unavailable, crashes nothing, and the pool reconnects', async () => {
    const { url } = await freshSchema();
    const db = new PgDatabase({ url, max: 2 });
    closers.push(() => db.close());
    const tx = db.transaction(async (t) => {
      const { rows } = await t.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await terminate(url, rows[0].pid);
      await sleep(300); // the FATAL arrives while no statement of this client is in flight
      await t.query('SELECT 1');
      return 'committed';
    });
    await expect(tx).rejects.toBeInstanceOf(DatabaseUnavailableError);
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('the follow-up lock: the creation stands, the broken lock connection is reported, nothing crashes', async () => {
    const { url } = await freshSchema();
    const errors: unknown[] = [];
    const lock = new PgFollowUpLock({ url, onError: (err) => errors.push(err) });
    closers.push(() => lock.close());
    const admin = new PgDatabase({ url, max: 1 });
    closers.push(() => admin.close());
    const out = await lock.run('agent-1', async () => {
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE application_name = 'turn-service follow-up lock' AND state = 'idle in transaction'`,
      );
      expect(rows).toHaveLength(1);
      await terminate(url, rows[0].pid);
      await sleep(300);
      return 'created';
    });
    expect(out).toBe('created');
    expect(errors.length).toBeGreaterThan(0);
    // The lock is usable again, on a new connection.
    expect(await lock.run('agent-1', async () => 'again')).toBe('again');
  });
});
