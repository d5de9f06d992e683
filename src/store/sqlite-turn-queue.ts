/**
 * SQLite implementation of {@link TurnQueue} on the `turns` table (columns `owner`, `lease_until`
 * ms epoch). A claim is one conditional UPDATE inside an immediate transaction — the pattern of
 * the scheduler's slot claims — so two claimers (threads, processes on the same file) never get
 * the same turn. `lease_until = 0` marks a turn released by its owner; a lease that ran out (or
 * was marked lost at start) is any other value below now. A `queued` turn with `lease_until` set
 * was deferred by its runner and is claimable from that time on.
 */
import type { Database } from './database.js';
import { StatementCache } from './statement-cache.js';
import type { ClaimedTurn, TurnQueue } from './turn-queue.js';

const CLAIMABLE = `((status = 'queued' AND (lease_until IS NULL OR lease_until <= @now)) OR (status = 'running' AND (lease_until IS NULL OR lease_until < @now)))`;

export class SqliteTurnQueue implements TurnQueue {
  private readonly claimTx;

  /** Statements by SQL text, compiled once (src/store/statement-cache.ts). */
  private readonly sql: StatementCache;

  constructor(db: Database) {
    this.sql = new StatementCache(db);
    const pick = db.prepare(`SELECT id, status, lease_until FROM turns WHERE ${CLAIMABLE} ORDER BY id LIMIT 1`);
    const take = db.prepare(
      `UPDATE turns SET status = 'running', owner = @owner, lease_until = @until,
         started_at = COALESCE(started_at, @nowIso)
       WHERE id = @id AND ${CLAIMABLE}`,
    );
    this.claimTx = db.transaction((owner: string, now: number, leaseMs: number): ClaimedTurn | undefined => {
      const row = pick.get({ now }) as { id: string; status: string; lease_until: number | null } | undefined;
      if (!row) return undefined;
      const r = take.run({ id: row.id, owner, until: now + leaseMs, now, nowIso: new Date(now).toISOString() });
      if (r.changes !== 1) return undefined;
      const previousRun = row.status === 'queued' ? 'none' : row.lease_until === 0 ? 'released' : 'lost';
      return { id: row.id, previousRun };
    });
  }

  async enqueue(id: string): Promise<boolean> {
    const r = this.sql.get(`UPDATE turns SET status = 'queued', owner = NULL, lease_until = NULL WHERE id = ? AND status IN ('waiting', 'queued')`)
      .run(id);
    return r.changes === 1;
  }

  async claim(owner: string, now: number, leaseMs: number): Promise<ClaimedTurn | undefined> {
    return this.claimTx.immediate(owner, now, leaseMs);
  }

  async renewMany(ids: readonly string[], owner: string, now: number, leaseMs: number): Promise<Map<string, { cancelRequested: boolean }>> {
    const held = new Map<string, { cancelRequested: boolean }>();
    const rows = this.sql.get(
      `UPDATE turns SET lease_until = ? WHERE id IN (SELECT value FROM json_each(?)) AND owner = ? AND status = 'running' RETURNING id, cancel_requested_at`,
    ).all(now + leaseMs, JSON.stringify(ids), owner) as { id: string; cancel_requested_at: string | null }[];
    for (const r of rows) held.set(r.id, { cancelRequested: r.cancel_requested_at !== null });
    return held;
  }

  async finish(id: string, owner: string): Promise<void> {
    this.sql.get(`UPDATE turns SET owner = NULL, lease_until = NULL WHERE id = ? AND owner = ?`).run(id, owner);
  }

  async release(id: string, owner: string): Promise<void> {
    this.sql.get(`UPDATE turns SET owner = NULL, lease_until = 0 WHERE id = ? AND owner = ? AND status = 'running'`).run(id, owner);
  }

  async defer(id: string, owner: string, until: number): Promise<boolean> {
    const r = this.sql.get(`UPDATE turns SET status = 'queued', owner = NULL, lease_until = ?, started_at = NULL WHERE id = ? AND owner = ? AND status = 'running'`)
      .run(until, id, owner);
    return r.changes === 1;
  }

  async wait(id: string, owner: string): Promise<boolean> {
    const r = this.sql.get(`UPDATE turns SET status = 'waiting', owner = NULL, lease_until = NULL WHERE id = ? AND owner = ? AND status = 'running'`)
      .run(id, owner);
    return r.changes === 1;
  }

  async recoverOrphans(_now: number): Promise<number> {
    // One process owns DATA_DIR: every lease still held belongs to a process that is gone.
    return this.sql.get(`UPDATE turns SET owner = NULL, lease_until = 1 WHERE status = 'running' AND (lease_until IS NULL OR lease_until <> 0)`).run().changes;
  }
}
