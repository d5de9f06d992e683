/**
 * Statements never wait forever: a backend that stops answering (its process stopped with
 * SIGSTOP, as a hung server or a connection dead without a reset looks to the client) fails the
 * statement as `database_unavailable` after the client-side read timeout, and a statement the
 * server holds (waiting for a lock) is cancelled by `statement_timeout` — both with
 * {@link DatabaseUnavailableError}, so callers take their outage path instead of hanging. The
 * pool goes on with new connections. Real Postgres; the backend process is really stopped.
 */
import { afterEach, expect, it } from 'vitest';
import pg from 'pg';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { PgFollowUpLock } from '../../src/store/postgres/pg-follow-up-lock.js';
import { DatabaseUnavailableError } from '../../src/store/postgres/unavailable.js';
import { describePostgres, freshSchema } from '../support/postgres.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** A connection of its own on `url` (closed after the test). */
async function adminClient(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  closers.push(() => c.end().catch(() => undefined));
  return c;
}

/** Stop backend `pid` (SIGSTOP) until the test ends; its socket stays open, nothing answers. */
function stopBackend(pid: number): void {
  process.kill(pid, 'SIGSTOP');
  closers.push(async () => {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // already gone
    }
  });
}

describePostgres('bounded statements on the stores pool', () => {
  it('a statement on a backend that stopped answering fails as database_unavailable after the read timeout', async () => {
    const { url } = await freshSchema();
    const db = new PgDatabase({ url, max: 1, statementTimeoutMs: 500 });
    closers.push(() => db.close());
    const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    stopBackend(rows[0].pid);
    const started = Date.now();
    const err = await db.query('SELECT 1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    // statement_timeout (500) + the client's grace; well under the test's own timeout.
    expect(Date.now() - started).toBeLessThan(10_000);
    // The stuck connection was dropped: the pool answers on a new one.
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  }, 20_000);

  it('a transaction whose statement stopped getting answers fails as database_unavailable and is not taken as committed', async () => {
    const { url } = await freshSchema();
    const db = new PgDatabase({ url, max: 1, statementTimeoutMs: 500 });
    closers.push(() => db.close());
    await db.query('CREATE TABLE t (n int)');
    const err = await db
      .transaction(async (tx) => {
        const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await tx.query('INSERT INTO t VALUES (1)');
        stopBackend(rows[0].pid);
        await tx.query('SELECT 1');
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect((await db.query('SELECT * FROM t')).rows).toEqual([]);
  }, 20_000);

  it('a statement the server holds past statement_timeout (a lock wait) is cancelled as database_unavailable', async () => {
    const { url } = await freshSchema();
    const admin = await adminClient(url);
    await admin.query(`SELECT pg_advisory_lock(42)`);
    const db = new PgDatabase({ url, max: 2, statementTimeoutMs: 300 });
    closers.push(() => db.close());
    const started = Date.now();
    const err = await db.query('SELECT pg_advisory_lock(42)').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect(Date.now() - started).toBeLessThan(5000);
  }, 20_000);

  it('migration-sized work may opt out: a transaction with statementTimeoutMs 0 is not cut', async () => {
    const { url } = await freshSchema();
    const db = new PgDatabase({ url, max: 1, statementTimeoutMs: 200 });
    closers.push(() => db.close());
    const out = await db.transaction(async (tx) => (await tx.query<{ ok: string }>(`SELECT pg_sleep(0.6)::text AS ok`)).rows[0].ok, { statementTimeoutMs: 0 });
    expect(out).toBe('');
  }, 20_000);

  it('the follow-up lock: a lock statement on a stopped backend fails as database_unavailable instead of hanging', async () => {
    const { url } = await freshSchema();
    const lock = new PgFollowUpLock({ url, max: 1, waitMs: 200, statementTimeoutMs: 300 });
    closers.push(() => lock.close());
    const admin = await adminClient(url);
    // Open the lock's connection once, then stop its backend while it sits idle in the pool.
    await lock.run('agent-1', async () => undefined);
    const { rows } = await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'turn-service follow-up lock'`);
    expect(rows).toHaveLength(1);
    stopBackend(rows[0].pid);
    const started = Date.now();
    const err = await lock.run('agent-1', async () => 'created').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 20_000);
});
