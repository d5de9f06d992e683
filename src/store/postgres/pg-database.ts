/**
 * The Postgres handle shared by every Postgres store: a `pg` (node-postgres 8) pool of at most
 * DATABASE_POOL_MAX connections, with
 * - `query(sql, params)` and `transaction(fn)` (BEGIN … COMMIT on one pooled client, ROLLBACK on a
 *   throw); connection failures surface as {@link DatabaseUnavailableError} (HTTP 503), never as a
 *   crash: the pool's `error` event (an idle connection dropped by the server) is logged, and the
 *   next query opens a new connection — so the service recovers on its own when the server returns;
 * - `int8` columns parsed to JS numbers (ms timestamps, counts; all far below 2^53);
 * - `ping()` for /readyz.
 */
import pg from 'pg';
import { DatabaseUnavailableError, isConnectionError } from './unavailable.js';

/** What a store needs to run statements: the pool itself or a client inside a transaction. */
export interface PgQueryable {
  /** Run one statement with `$1…$n` parameters; rows as plain objects. */
  query<R extends object = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[]; rowCount: number }>;
}

export interface PgDatabaseOptions {
  /** `postgres://user:pass@host:port/db` (libpq URI; `?options=-c search_path=x` selects a schema). */
  url: string;
  /** Pool size (DATABASE_POOL_MAX). */
  max: number;
  /** Ms to wait for a free/new connection before failing with 503 (default 5000). */
  connectTimeoutMs?: number;
  /** Called when an idle connection fails (logged; never thrown). */
  onIdleError?: (err: Error) => void;
}

const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * Give every connection of `pool` an 'error' listener for its whole life (a no-op). The pool
 * listens only while a connection is idle: one checked out — by a transaction between two
 * statements, or by a waiting `connect()` it is handed to inside the very data event that also
 * carries the server's FATAL "terminating connection" (a restart) — would otherwise emit an
 * unhandled 'error' and crash the process. Nothing needs doing in the listener: the next statement
 * on that connection fails with a connection error (so a transaction is never taken as committed),
 * and the pool drops the connection when it is released (it is no longer queryable).
 */
export function listenForErrorsAlways(pool: pg.Pool): void {
  pool.on('connect', (client) => client.on('error', () => undefined));
}

export class PgDatabase implements PgQueryable {
  readonly pool: pg.Pool;

  constructor(options: PgDatabaseOptions) {
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.max,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      idleTimeoutMillis: 30_000,
      application_name: 'turn-service',
      types,
    });
    this.pool.on('error', (err) => options.onIdleError?.(err));
    listenForErrorsAlways(this.pool);
  }

  async query<R extends object = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<{ rows: R[]; rowCount: number }> {
    try {
      const r = await this.pool.query(sql, params);
      return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
    } catch (err) {
      throw isConnectionError(err) ? new DatabaseUnavailableError(err) : err;
    }
  }

  /**
   * Run `fn` in one transaction on one client. COMMIT when it resolves, ROLLBACK when it throws
   * (the error is rethrown; connection failures as {@link DatabaseUnavailableError}).
   */
  async transaction<T>(fn: (tx: PgQueryable) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw isConnectionError(err) ? new DatabaseUnavailableError(err) : err;
    }
    const tx: PgQueryable = {
      query: async <R extends object>(sql: string, params: unknown[] = []) => {
        const r = await client.query(sql, params);
        return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
      },
    };
    let broken: unknown;
    try {
      await client.query('BEGIN');
      const out = await fn(tx);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      if (isConnectionError(err)) broken = err;
      else await client.query('ROLLBACK').catch((e: unknown) => (broken = e));
      throw isConnectionError(err) ? new DatabaseUnavailableError(err) : err;
    } finally {
      // A client whose connection broke is destroyed instead of going back to the pool.
      client.release(broken instanceof Error ? broken : broken === undefined ? undefined : true);
    }
  }

  /** One round trip (`SELECT 1`); throws {@link DatabaseUnavailableError} when it fails. */
  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
