/**
 * The Postgres handle shared by every Postgres store: a `pg` (node-postgres 8) pool of at most
 * DATABASE_POOL_MAX connections, with
 * - `query(sql, params)` and `transaction(fn)` (BEGIN … COMMIT on one pooled client, ROLLBACK on a
 *   throw); connection failures surface as {@link DatabaseUnavailableError} (HTTP 503), never as a
 *   crash: the pool's `error` event (an idle connection dropped by the server) is logged, and the
 *   next query opens a new connection — so the service recovers on its own when the server returns;
 * - bounded statements ({@link boundedStatements}): the server cancels a statement that runs past
 *   `statementTimeoutMs` (DATABASE_STATEMENT_TIMEOUT_MS), and the client gives up on one that got
 *   no answer up to {@link READ_TIMEOUT_GRACE_MS} later (a stopped server, a connection dead without a
 *   reset) and drops its connection — both as {@link DatabaseUnavailableError}, so no caller waits
 *   forever (a turn's run stops and resumes instead of holding its lease with a write that never
 *   returns);
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
  /**
   * Ms one statement may take (DATABASE_STATEMENT_TIMEOUT_MS; default
   * {@link DEFAULT_STATEMENT_TIMEOUT_MS}): see {@link boundedStatements}.
   */
  statementTimeoutMs?: number;
  /** Called when an idle connection fails (logged; never thrown). */
  onIdleError?: (err: Error) => void;
}

/** Default of {@link PgDatabaseOptions.statementTimeoutMs} (DATABASE_STATEMENT_TIMEOUT_MS), ms. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/**
 * Ms the client waits for an answer beyond the statement timeout before it gives the statement up
 * (the server, when it is alive, cancels it first and answers with its own error); shorter timeouts
 * get as long again as grace instead.
 */
export const READ_TIMEOUT_GRACE_MS = 5000;

/** The client-side read timeout of statements limited to `statementTimeoutMs` on the server, ms. */
function readTimeoutMs(statementTimeoutMs: number): number {
  return statementTimeoutMs + Math.min(READ_TIMEOUT_GRACE_MS, statementTimeoutMs);
}
/** Longest timer Node accepts (ms): a client-side read timeout meaning "none". */
const NO_READ_TIMEOUT = 2_147_483_647;

/**
 * `pg` connection settings that bound every statement of a pool's connections:
 * - `statement_timeout` = `statementTimeoutMs`: the server cancels a statement running longer
 *   (SQLSTATE 57014, e.g. one waiting for a lock that is never let go);
 * - `query_timeout` = `statementTimeoutMs` + min({@link READ_TIMEOUT_GRACE_MS}, `statementTimeoutMs`): the client stops
 *   waiting for an answer that does not come (server stopped or hung, connection silently dead) —
 *   the statement fails with "Query read timeout" and its connection must be dropped;
 * - `idle_in_transaction_session_timeout` = max(60 s, 2 × `statementTimeoutMs`): a transaction left
 *   open by a client that stopped (a frozen process) does not hold its locks forever;
 * - TCP keep-alive, so a connection whose peer vanished is noticed even while idle.
 * Both timeouts fail as {@link DatabaseUnavailableError} through {@link isConnectionError}.
 * @param statementTimeoutMs ms, > 0.
 */
export function boundedStatements(statementTimeoutMs: number) {
  return {
    statement_timeout: statementTimeoutMs,
    query_timeout: readTimeoutMs(statementTimeoutMs),
    idle_in_transaction_session_timeout: Math.max(60_000, 2 * statementTimeoutMs),
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}

/** Options of {@link PgDatabase.transaction}. */
export interface TransactionOptions {
  /**
   * Ms each statement of this transaction may take instead of the pool's statement timeout; `0`:
   * no limit (schema migrations, which may wait for another instance's migration and rewrite big
   * tables).
   */
  statementTimeoutMs?: number;
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

/**
 * A `pg` pool of the service on `url`: at most `max` connections, `connectTimeoutMs` (default
 * 5000) to get one, idle ones closed after 30 s, every statement bounded ({@link boundedStatements},
 * `statementTimeoutMs` default {@link DEFAULT_STATEMENT_TIMEOUT_MS}), shown as `applicationName`
 * in `pg_stat_activity`; an idle connection that fails is reported to `onError`, and a checked-out
 * one that fails never crashes the process ({@link listenForErrorsAlways}). `extra` adds pool
 * settings (e.g. type parsers).
 */
export function servicePool(o: {
  url: string;
  max: number;
  applicationName: string;
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
  onError?: (err: Error) => void;
  extra?: pg.PoolConfig;
}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: o.url,
    max: o.max,
    connectionTimeoutMillis: o.connectTimeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
    application_name: o.applicationName,
    ...boundedStatements(o.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS),
    ...o.extra,
  });
  pool.on('error', (err) => o.onError?.(err));
  listenForErrorsAlways(pool);
  return pool;
}

export class PgDatabase implements PgQueryable {
  readonly pool: pg.Pool;

  constructor(options: PgDatabaseOptions) {
    this.pool = servicePool({
      url: options.url,
      max: options.max,
      applicationName: 'turn-service',
      ...(options.connectTimeoutMs !== undefined ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
      ...(options.statementTimeoutMs !== undefined ? { statementTimeoutMs: options.statementTimeoutMs } : {}),
      ...(options.onIdleError ? { onError: options.onIdleError } : {}),
      extra: { types },
    });
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
   * (the error is rethrown; connection failures and timeouts as {@link DatabaseUnavailableError},
   * after which the client is dropped, never reused). A COMMIT whose answer was lost may have
   * committed: callers that must know re-read what they wrote.
   * @param options.statementTimeoutMs per-statement limit of this transaction (0: none).
   */
  async transaction<T>(fn: (tx: PgQueryable) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw isConnectionError(err) ? new DatabaseUnavailableError(err) : err;
    }
    const limit = options.statementTimeoutMs;
    const readTimeout = limit === undefined ? undefined : limit === 0 ? NO_READ_TIMEOUT : readTimeoutMs(limit);
    const tx: PgQueryable = {
      query: async <R extends object>(sql: string, params: unknown[] = []) => {
        const r = await client.query({ text: sql, values: params, ...(readTimeout ? { query_timeout: readTimeout } : {}) } as pg.QueryConfig);
        return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
      },
    };
    let broken: unknown;
    try {
      await client.query('BEGIN');
      if (limit !== undefined) await tx.query(`SET LOCAL statement_timeout = ${Math.max(0, Math.round(limit))}`);
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
