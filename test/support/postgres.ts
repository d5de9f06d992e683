/**
 * Postgres for tests. TEST_DATABASE_URL points at a throw-away cluster (`scripts/test-postgres.sh
 * start`; `.ci/run` starts one). Each test FILE gets its own database ({@link testDatabase}) and
 * each test may take a fresh schema in it ({@link freshSchema}), so files run in parallel.
 *
 * Without TEST_DATABASE_URL: with CI=true the Postgres suites FAIL (a CI run must not silently
 * test less); locally they are skipped, with the reason in the suite's name.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, it } from 'vitest';
import { migrate } from '../../src/store/postgres/migrate.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations/index.js';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL?.trim() || undefined;
const inCi = process.env.CI === 'true' || process.env.CI === '1';
const MISSING = 'TEST_DATABASE_URL is not set (start one: eval "$(scripts/test-postgres.sh start)")';

/**
 * `describe` for a suite that needs Postgres: runs with TEST_DATABASE_URL; without it fails
 * (CI=true) or is skipped with a one-line reason (locally).
 */
export function describePostgres(title: string, fn: () => void): void {
  if (TEST_DATABASE_URL) describe(title, fn);
  else if (inCi) describe(title, () => it('needs Postgres', () => { throw new Error(`CI=true but ${MISSING}`); }));
  else describe.skip(`${title} — skipped: ${MISSING}`, fn);
}

/** Connection URL of `url` with another database name. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Connection URL whose sessions use `schema` first (libpq `options=-c search_path=…`). */
export function withSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

let fileDatabase: Promise<string> | undefined;

/**
 * A database of this test file alone (created on first use, dropped after the file's tests).
 * @returns its URL. Needs TEST_DATABASE_URL (use inside {@link describePostgres}).
 */
export function testDatabase(): Promise<string> {
  if (!TEST_DATABASE_URL) throw new Error(MISSING);
  const admin = TEST_DATABASE_URL;
  fileDatabase ??= (async () => {
    const name = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    try {
      await c.query(`CREATE DATABASE ${name}`);
    } finally {
      await c.end();
    }
    fileDatabaseName = name;
    return withDatabase(admin, name);
  })();
  return fileDatabase;
}

let fileDatabaseName: string | undefined;
// Registered when a test file imports this module: drops the file's database after its tests.
afterAll(async () => {
  if (!fileDatabaseName || !TEST_DATABASE_URL) return;
  const d = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await d.connect();
  await d.query(`DROP DATABASE IF EXISTS ${fileDatabaseName} WITH (FORCE)`).finally(() => d.end());
});

/**
 * A new empty schema in this file's database; `url` makes every session use it.
 * Not migrated: pass `url` to the code under test, or use {@link migratedSchema}.
 */
export async function freshSchema(): Promise<{ schema: string; url: string }> {
  const dbUrl = await testDatabase();
  const schema = `s_${randomBytes(5).toString('hex')}`;
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  await c.query(`CREATE SCHEMA ${schema}`).finally(() => c.end());
  return { schema, url: withSchema(dbUrl, schema) };
}

/** A fresh schema with every migration applied and a pool on it (close it after the test). */
export async function migratedSchema(max = 4): Promise<{ db: PgDatabase; url: string; schema: string }> {
  const { schema, url } = await freshSchema();
  const db = new PgDatabase({ url, max });
  await migrate(db, MIGRATIONS);
  return { db, url, schema };
}

/**
 * Run one statement on the database at `url` over a connection of its own (opened and closed
 * here), e.g. to look at or change what service processes stored. @returns its rows.
 */
export async function queryOnce<R extends object>(url: string, text: string, params: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(text, params)).rows;
  } finally {
    await c.end();
  }
}
