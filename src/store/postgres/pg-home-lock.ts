/**
 * The agent-home lock across instances: a session-level Postgres advisory lock keyed by agent id
 * (`hashtext('agent-home:' || agent_id)`; a hash collision only serializes two agents, never
 * breaks exclusion), held on a pooled connection for as long as the home is in use:
 * - `exclusive` (a running `command`) is `pg_advisory_lock`, `shared` (file tools, saved pages) is
 *   `pg_advisory_lock_shared` — https://www.postgresql.org/docs/current/explicit-locking.html#ADVISORY-LOCKS;
 * - waiting is `pg_try_advisory_lock*` every {@link PgHomeLocksOptions.pollMs} on the connection
 *   (not a blocking call), so a waiter whose signal aborts (turn cancelled, tool timeout) stops at
 *   once and its connection goes back to the pool;
 * - shared holders of one agent on this instance share one held connection (joining it once it is
 *   held), so many parallel file tools cost one connection, not one each.
 * The in-process lock (src/tools/computer/home-lock.ts) is taken first, so at most one exclusive
 * holder per agent waits here per instance.
 *
 * If the held connection breaks (database restarted), Postgres has dropped the lock: the error is
 * reported to `onError` and the holder finishes (its work is already under way); the next
 * acquisition takes the lock again.
 */
import type pg from 'pg';
import { servicePool } from './pg-database.js';
import type { HomeLockMode, InstanceHomeLock } from '../../tools/computer/home-lock.js';
import { DatabaseUnavailableError, isConnectionError } from './unavailable.js';

export interface PgHomeLocksOptions {
  /** Ms between tries while another instance holds the lock (default 100). */
  pollMs?: number;
  /** Hears about a held connection that broke (the lock is gone with it). */
  onError?: (err: unknown) => void;
}

interface Hold {
  mode: HomeLockMode;
  holders: number;
  client: pg.PoolClient;
  onError: (err: Error) => void;
}

const LOCK_SQL = {
  exclusive: `SELECT pg_try_advisory_lock(hashtext('agent-home:' || $1)) AS ok`,
  shared: `SELECT pg_try_advisory_lock_shared(hashtext('agent-home:' || $1)) AS ok`,
};
const UNLOCK_SQL = {
  exclusive: `SELECT pg_advisory_unlock(hashtext('agent-home:' || $1))`,
  shared: `SELECT pg_advisory_unlock_shared(hashtext('agent-home:' || $1))`,
};

export class PgHomeLocks implements InstanceHomeLock {
  /** Per agent: the held shared lock that later shared holders join. */
  private readonly shared = new Map<string, Hold>();
  private readonly pollMs: number;

  constructor(private readonly pool: pg.Pool, private readonly options: PgHomeLocksOptions = {}, private readonly ownPool = false) {
    this.pollMs = options.pollMs ?? 100;
  }

  /**
   * Locks on a pool of their own on `url`: at most `max` connections — one per agent whose home is
   * in use on this instance, so MAX_CONCURRENT_TURNS is enough — each statement bounded by
   * `statementTimeoutMs` (DATABASE_STATEMENT_TIMEOUT_MS), idle ones closed after 30 s. A held
   * connection that breaks (a server restart) does not crash the process: `onError` hears of it.
   * Close it with {@link close}.
   */
  static withOwnPool(o: PgHomeLocksOptions & { url: string; max: number; statementTimeoutMs?: number }): PgHomeLocks {
    const pool = servicePool({
      url: o.url,
      max: o.max,
      applicationName: 'turn-service home locks',
      ...(o.statementTimeoutMs !== undefined ? { statementTimeoutMs: o.statementTimeoutMs } : {}),
      onError: (err) => o.onError?.(err),
    });
    return new PgHomeLocks(pool, o, true);
  }

  /**
   * End the pool made by {@link withOwnPool} (a no-op on a pool given). Waits at most 2 s for held
   * locks to be let go (a command still stopping at shutdown): the server drops the locks of the
   * connections that go with the process.
   */
  async close(): Promise<void> {
    if (!this.ownPool) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.pool.end().catch(() => undefined), new Promise((r) => (timer = setTimeout(r, 2000)))]);
    clearTimeout(timer);
  }

  async acquire(agentId: string, mode: HomeLockMode, signal?: AbortSignal): Promise<() => Promise<void>> {
    const joined = mode === 'shared' ? this.shared.get(agentId) : undefined;
    const hold = joined ?? (await this.take(agentId, mode, signal));
    if (joined) joined.holders++;
    else if (mode === 'shared') this.shared.set(agentId, hold);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      if (--hold.holders > 0) return;
      if (this.shared.get(agentId) === hold) this.shared.delete(agentId);
      let broken: Error | undefined;
      try {
        await hold.client.query(UNLOCK_SQL[hold.mode], [agentId]);
      } catch (err) {
        broken = err instanceof Error ? err : new Error(String(err));
      }
      hold.client.off('error', hold.onError);
      hold.client.release(broken);
    };
  }

  /** A new connection holding the lock in `mode`, once no other session holds a conflicting one. */
  private async take(agentId: string, mode: HomeLockMode, signal?: AbortSignal): Promise<Hold> {
    signal?.throwIfAborted();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw new DatabaseUnavailableError(err);
    }
    const onError = (err: Error) => this.options.onError?.(err);
    client.on('error', onError);
    try {
      for (;;) {
        const { rows } = await client.query<{ ok: boolean }>(LOCK_SQL[mode], [agentId]);
        if (rows[0]?.ok) return { mode, holders: 1, client, onError };
        await sleep(this.pollMs, signal);
      }
    } catch (err) {
      client.off('error', onError);
      client.release(isConnectionError(err) ? (err as Error) : undefined);
      if (signal?.aborted) {
        throw new Error('gave up waiting for the agent home: another instance is using it (a command of this agent runs there); the call was cancelled or timed out');
      }
      throw isConnectionError(err) ? new DatabaseUnavailableError(err) : err;
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
