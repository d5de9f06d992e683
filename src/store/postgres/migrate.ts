/**
 * Versioned schema migrations for Postgres, applied at start-up by {@link migrate}:
 * - all pending migrations run in ONE transaction that first takes the transaction-scoped advisory
 *   lock {@link MIGRATION_LOCK_KEY} (`pg_advisory_xact_lock`), so instances starting together
 *   apply each migration once: the second waits for the first to commit, then finds nothing to do;
 *   its statements have no time limit (a migration may rewrite a big table; the wait for another
 *   instance's migration lasts as long as that takes) — DATABASE_STATEMENT_TIMEOUT_MS does not apply;
 * - applied versions are rows of `schema_migrations(version, name, applied_at)`; every migration
 *   whose version is not there yet is applied, lowest first — also one numbered below the highest
 *   applied version (version numbers are reserved per feature, so they may land out of order; each
 *   migration creates or changes only its own tables and must not depend on a higher-numbered one);
 * - a database with an applied version this build does not know is refused with
 *   {@link SchemaTooNewError} (an older build must not write a newer schema).
 *
 * To add tables (e.g. a new store): add a migration with a new version to ./migrations/index.ts.
 * Never edit or renumber one that has shipped.
 */
import type { PgDatabase, PgQueryable } from './pg-database.js';

/** One step of the schema. `sql` may hold several statements. */
export interface Migration {
  /** Unique positive integer; applied in ascending order (gaps allowed: numbers are reserved per feature). */
  version: number;
  /** Short name, stored beside the version. */
  name: string;
  sql: string;
}

/** Key of the advisory lock held while migrating (any stable bigint; shared by every instance). */
export const MIGRATION_LOCK_KEY = 7_421_503_118_902_551n;

/** The database has a schema version this build does not know. The service refuses to start. */
export class SchemaTooNewError extends Error {
  constructor(readonly databaseVersion: number, readonly codeVersion: number) {
    super(
      `the database schema is at version ${databaseVersion} but this build of the service knows versions up to ${codeVersion}: ` +
        'run a build at least as new as the one that migrated it, or point DATABASE_URL at another database',
    );
    this.name = 'SchemaTooNewError';
  }
}

export interface MigrateResult {
  /** Highest applied version before / after. 0 = empty database. */
  from: number;
  to: number;
  /** Versions applied by this call (empty when another instance already did). */
  applied: number[];
}

/**
 * Apply every migration of `migrations` the database has not applied yet, in ascending version
 * order (versions checked to be unique positive integers).
 * @throws SchemaTooNewError when the database has a version `migrations` does not know; the
 *   statement's error (nothing applied: one transaction) when a migration fails.
 */
export async function migrate(db: PgDatabase, migrations: readonly Migration[]): Promise<MigrateResult> {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  sorted.forEach((m, i) => {
    if (!Number.isInteger(m.version) || m.version < 1) throw new Error(`migration versions must be positive integers; found ${m.version} (${m.name})`);
    if (i > 0 && sorted[i - 1].version === m.version) throw new Error(`migration version ${m.version} is used twice (${sorted[i - 1].name}, ${m.name})`);
  });
  const known = new Set(sorted.map((m) => m.version));
  const latest = sorted.at(-1)?.version ?? 0;
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`);
    const done = await appliedVersions(tx);
    const from = done.at(-1) ?? 0;
    const unknown = done.filter((v) => !known.has(v));
    if (unknown.length) throw new SchemaTooNewError(unknown.at(-1)!, latest);
    const applied: number[] = [];
    for (const m of sorted.filter((x) => !done.includes(x.version))) {
      await tx.query(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    }
    return { from, to: Math.max(from, latest), applied };
  }, { statementTimeoutMs: 0 });
}

/** Applied versions, ascending. */
async function appliedVersions(q: PgQueryable): Promise<number[]> {
  const { rows } = await q.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  return rows.map((r) => r.version);
}

/** Highest applied version (0 when none). */
export async function currentVersion(q: PgQueryable): Promise<number> {
  const { rows } = await q.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
  return rows[0]?.v ?? 0;
}
