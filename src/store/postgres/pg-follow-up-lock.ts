/**
 * Follow-up creation across instances: the turn service creates the follow-ups (`enqueue` /
 * `interrupt` double-texts) of one agent one at a time — in one process with a promise chain,
 * across processes on one Postgres with this lock, so two follow-ups sent at the same moment to two
 * instances chain (the second continues the first) instead of both continuing the same turn.
 *
 * The lock is a transaction-scoped advisory lock keyed by agent
 * (`pg_advisory_xact_lock(hashtext('turn-follow-up:' || agent_id))`; a hash collision only
 * serializes two agents, never breaks exclusion —
 * https://www.postgresql.org/docs/current/explicit-locking.html#ADVISORY-LOCKS): BEGIN, take the
 * lock, run the creation (its reads and its insert go through the stores' own pool, committed
 * before the lock is let go), COMMIT. A process that dies holding it loses its connection and, with
 * it, the lock.
 *
 * Its connections come from a pool of their own ({@link PgFollowUpLockOptions.max}, default 2), not
 * the stores' pool: a creation holds one lock connection and needs store connections meanwhile, so
 * drawing both from one pool could exhaust it with every connection waiting for another.
 */
import pg from 'pg';
import { HttpError } from '../../http/errors.js';
import type { FollowUpLock } from '../../turns/turn-service.js';
import { DEFAULT_STATEMENT_TIMEOUT_MS, servicePool } from './pg-database.js';
import { DatabaseUnavailableError, isConnectionError } from './unavailable.js';

export interface PgFollowUpLockOptions {
  /** The database (DATABASE_URL). */
  url: string;
  /** Lock connections (default 2): follow-ups of more agents than this wait for one. */
  max?: number;
  /** Ms a creation waits for another instance's creation of the same agent (default 10000), then 503. */
  waitMs?: number;
  /** Ms to wait for a lock connection (default 5000), then 503 `database_unavailable`. */
  connectTimeoutMs?: number;
  /**
   * Ms a statement on a lock connection may take (DATABASE_STATEMENT_TIMEOUT_MS, default 30000;
   * the lock wait itself is bounded by `waitMs`, which it always leaves room for): past it the
   * statement fails with 503 `database_unavailable` instead of hanging (see `boundedStatements`).
   */
  statementTimeoutMs?: number;
  /** Hears about a lock connection that failed (idle, or after the creation it served). */
  onError?: (err: unknown) => void;
}

/** Postgres `lock_not_available`: `lock_timeout` ran out. */
const LOCK_NOT_AVAILABLE = '55P03';

/** {@link FollowUpLock} on Postgres (see the module doc). */
export class PgFollowUpLock implements FollowUpLock {
  private readonly pool: pg.Pool;
  private readonly waitMs: number;

  constructor(private readonly options: PgFollowUpLockOptions) {
    this.waitMs = options.waitMs ?? 10_000;
    // A lock connection sits checked out while the creation runs: a server restart then must not
    // crash the process (the lock goes with the connection; COMMIT fails and is reported).
    this.pool = servicePool({
      url: options.url,
      max: options.max ?? 2,
      applicationName: 'turn-service follow-up lock',
      ...(options.connectTimeoutMs !== undefined ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
      // The lock wait (lock_timeout = waitMs) must end with its own error, not the statement timeout.
      statementTimeoutMs: Math.max(options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS, this.waitMs + 1000),
      onError: (err) => options.onError?.(err),
    });
  }

  /**
   * @throws HttpError 503 `follow_up_busy` when another instance held the agent's lock for longer
   *   than `waitMs`; DatabaseUnavailableError (503) when no lock connection could be had; `fn`'s
   *   error.
   */
  async run<T>(agentId: string, fn: () => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw isConnectionError(err) ? new DatabaseUnavailableError(err) : err;
    }
    let broken: Error | undefined;
    let locked = false;
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(this.waitMs))}`);
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('turn-follow-up:' || $1))`, [agentId]);
      locked = true;
    } catch (err) {
      if (isConnectionError(err)) broken = err as Error;
      else await client.query('ROLLBACK').catch((e: unknown) => (broken = e instanceof Error ? e : new Error(String(e))));
      client.release(broken);
      if ((err as { code?: string }).code === LOCK_NOT_AVAILABLE) {
        throw new HttpError(503, 'follow_up_busy', `another follow-up of agent ${agentId} has been being created for ${this.waitMs} ms (on another instance); retry in a moment`);
      }
      throw isConnectionError(err) ? new DatabaseUnavailableError(err) : err;
    }
    try {
      return await fn();
    } finally {
      if (locked) {
        // Nothing was written on this connection: COMMIT only lets the lock go. Should it fail, the
        // connection is gone and the lock with it — `fn`'s result (a stored turn) stands.
        try {
          await client.query('COMMIT');
        } catch (err) {
          broken = err instanceof Error ? err : new Error(String(err));
          this.options.onError?.(err);
        }
      }
      client.release(broken);
    }
  }

  /** Close the lock connections (after the last `run`). */
  async close(): Promise<void> {
    await this.pool.end();
  }
}
