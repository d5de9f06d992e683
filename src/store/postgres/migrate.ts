/**
 * Versioned schema migrations for Postgres, applied at start-up by {@link migrate}:
 * - all pending migrations run in ONE transaction that first takes the transaction-scoped advisory
 *   lock {@link MIGRATION_LOCK_KEY} (`pg_advisory_xact_lock`), so instances starting together
 *   apply each migration once: the second waits for the first to commit, then finds nothing to do;
 * - applied versions are rows of `schema_migrations(version, name, applied_at)`;
 * - a database whose highest version is newer than the newest migration this build knows is
 *   refused with {@link SchemaTooNewError} (an older build must not write a newer schema).
 *
 * To add tables (e.g. a new store): append a migration with the next version to
 * ./migrations/index.ts. Never edit or renumber one that has shipped.
 */
import type { PgDatabase, PgQueryable } from './pg-database.js';

/** One step of the schema. `sql` may hold several statements. */
export interface Migration {
  /** 1, 2, 3… in order, no gaps. */
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
  /** Version before / after. 0 = empty database. */
  from: number;
  to: number;
  /** Versions applied by this call (empty when another instance already did). */
  applied: number[];
}

/**
 * Bring the schema up to the newest of `migrations` (sorted by version; checked for gaps).
 * @throws SchemaTooNewError when the database is newer than `migrations`; the statement's error
 *   (nothing applied: one transaction) when a migration fails.
 */
export async function migrate(db: PgDatabase, migrations: readonly Migration[]): Promise<MigrateResult> {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  sorted.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migrations must be numbered 1..n without gaps; found ${m.version} at position ${i + 1}`);
  });
  const latest = sorted.at(-1)?.version ?? 0;
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`);
    const from = await currentVersion(tx);
    if (from > latest) throw new SchemaTooNewError(from, latest);
    const applied: number[] = [];
    for (const m of sorted.filter((x) => x.version > from)) {
      await tx.query(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    }
    return { from, to: Math.max(from, latest), applied };
  });
}

/** Highest applied version (0 when none). */
export async function currentVersion(q: PgQueryable): Promise<number> {
  const { rows } = await q.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
  return rows[0]?.v ?? 0;
}
