/**
 * Prepared statements reused by SQL text. better-sqlite3 compiles a statement on every
 * `db.prepare` (≈ 100 µs for a small UPDATE on a busy machine, more than running it); a store
 * that builds its SQL per call goes through {@link StatementCache.get} instead. At most `max`
 * statements are kept (least recently used ones are dropped), so SQL built from request options
 * cannot grow it without bound.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from './database.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the stores bind positional values of any type
type Statement = BetterSqlite3.Statement<any[]>;

export class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly db: Database,
    private readonly max = 200,
  ) {}

  /** The prepared statement for `sql` (compiled on first use). @throws SqliteError for bad SQL. */
  get(sql: string): Statement {
    let s = this.statements.get(sql);
    if (s) {
      this.statements.delete(sql);
    } else {
      s = this.db.prepare(sql);
      if (this.statements.size >= this.max) this.statements.delete(this.statements.keys().next().value!);
    }
    this.statements.set(sql, s);
    return s;
  }
}
