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

const LATEST = Math.max(...MIGRATIONS.map((m) => m.version));

describePostgres('postgres migrations', () => {
  it('apply every version once, in order, and do nothing the second time', async () => {
    const { url } = await freshSchema();
    const db = pool(url);
    const first = await migrate(db, MIGRATIONS);
    const versions = MIGRATIONS.map((m) => m.version).sort((x, y) => x - y);
    expect(first).toEqual({ from: 0, to: LATEST, applied: versions });
    expect(await migrate(db, MIGRATIONS)).toEqual({ from: LATEST, to: LATEST, applied: [] });
    const { rows } = await db.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version');
    expect(rows).toEqual([...MIGRATIONS].sort((x, y) => x.version - y.version).map((m) => ({ version: m.version, name: m.name })));
  });

  it('applies a migration numbered below the highest applied one when it lands later (reserved numbers)', async () => {
    const { url } = await freshSchema();
    const db = pool(url);
    const first: Migration[] = [
      { version: 1, name: 'base', sql: 'CREATE TABLE base (id INTEGER)' },
      { version: 8, name: 'eight', sql: 'CREATE TABLE eight (id INTEGER)' },
    ];
    expect(await migrate(db, first)).toEqual({ from: 0, to: 8, applied: [1, 8] });
    const later = [...first, { version: 5, name: 'five', sql: 'CREATE TABLE five (id INTEGER)' }];
    expect(await migrate(db, later)).toEqual({ from: 8, to: 8, applied: [5] });
    const { rows } = await db.query<{ t: string | null }>("SELECT to_regclass('five')::text AS t");
    expect(rows[0].t).toBe('five');
  });

  it('refuses migration lists that use a version twice', async () => {
    const { url } = await freshSchema();
    const twice: Migration[] = [
      { version: 1, name: 'a', sql: 'SELECT 1' },
      { version: 1, name: 'b', sql: 'SELECT 1' },
    ];
    await expect(migrate(pool(url), twice)).rejects.toThrow('migration version 1 is used twice (a, b)');
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
    await db.query("INSERT INTO schema_migrations (version, name) VALUES ($1, 'from the future')", [LATEST + 5]);
    const err = await migrate(db, MIGRATIONS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchemaTooNewError);
    expect((err as Error).message).toContain(`schema is at version ${LATEST + 5}`);
    expect((err as Error).message).toContain(`versions up to ${LATEST}`);
  });
});
