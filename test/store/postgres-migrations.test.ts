import { afterEach, expect, it } from 'vitest';
import { migrate, SchemaTooNewError, type Migration } from '../../src/store/postgres/migrate.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations/index.js';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { describePostgres, freshSchema } from '../support/postgres.js';

const open: PgDatabase[] = [];
const pool = (url: string) => {
  const db = new PgDatabase({ url, max: 2 });
  open.push(db);
  return db;
};
afterEach(async () => {
  await Promise.all(open.splice(0).map((d) => d.close()));
});

describePostgres('postgres migrations', () => {
  it('apply every version once, in order, and do nothing the second time', async () => {
    const { url } = await freshSchema();
    const db = pool(url);
    const first = await migrate(db, MIGRATIONS);
    expect(first).toEqual({ from: 0, to: MIGRATIONS.length, applied: MIGRATIONS.map((m) => m.version) });
    expect(await migrate(db, MIGRATIONS)).toEqual({ from: MIGRATIONS.length, to: MIGRATIONS.length, applied: [] });
    const { rows } = await db.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version');
    expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
  });

  it('two instances migrating at the same moment apply each migration exactly once (advisory lock)', async () => {
    const { url } = await freshSchema();
    // A slow first step widens the race window: without the lock both would CREATE TABLE and one would fail.
    const slow: Migration[] = [
      { version: 1, name: 'slow', sql: 'CREATE TABLE raced (id INTEGER PRIMARY KEY); SELECT pg_sleep(0.3)' },
      { version: 2, name: 'seed', sql: 'INSERT INTO raced VALUES (1)' },
    ];
    const [a, b] = await Promise.all([migrate(pool(url), slow), migrate(pool(url), slow)]);
    expect([...a.applied, ...b.applied].sort()).toEqual([1, 2]);
    expect([a.applied.length, b.applied.length].sort()).toEqual([0, 2]);
    const { rows } = await pool(url).query<{ n: number }>('SELECT count(*)::int AS n FROM raced');
    expect(rows[0].n).toBe(1);
  });

  it('a failing migration leaves nothing behind (one transaction)', async () => {
    const { url } = await freshSchema();
    const db = pool(url);
    const broken: Migration[] = [
      { version: 1, name: 'ok', sql: 'CREATE TABLE fine (id INTEGER)' },
      { version: 2, name: 'bad', sql: 'CREATE TABLE nope (id NO_SUCH_TYPE)' },
    ];
    await expect(migrate(db, broken)).rejects.toThrow(/no_such_type/);
    const { rows } = await db.query<{ t: string | null }>("SELECT to_regclass('fine')::text AS t");
    expect(rows[0].t).toBeNull();
  });

  it('refuses a database whose schema is newer than this build, saying what to do', async () => {
    const { url } = await freshSchema();
    const db = pool(url);
    await migrate(db, MIGRATIONS);
    await db.query("INSERT INTO schema_migrations (version, name) VALUES ($1, 'from the future')", [MIGRATIONS.length + 5]);
    const err = await migrate(db, MIGRATIONS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchemaTooNewError);
    expect((err as Error).message).toContain(`schema is at version ${MIGRATIONS.length + 5}`);
    expect((err as Error).message).toContain(`versions up to ${MIGRATIONS.length}`);
  });
});
