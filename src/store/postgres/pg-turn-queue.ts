/**
 * The turn queue on Postgres (columns `owner`, `lease_until` of `turns`). A claim picks the oldest
 * claimable turn with `SELECT … FOR UPDATE SKIP LOCKED` and takes it in the same transaction, so
 * concurrent claimers on any instance skip each other's rows instead of waiting and never get the
 * same turn. Claimable: `queued` (once `lease_until` has passed when deferred), or `running` with a lease that ran out (`lease_until < now`; 0
 * = released by its owner). Shared engine: {@link PgTurnQueue.recoverOrphans} does nothing —
 * a dead instance's leases expire on their own and another instance takes the turns over.
 *
 * Each claim returns the turn's claim epoch (`lease_epoch`, migration 19), raised whenever the turn
 * passes to another holder: the run's writes are fenced with it (src/store/lease-fence.ts).
 */
import type { ClaimedTurn, TurnQueue } from '../turn-queue.js';
import type { PgDatabase } from './pg-database.js';

const CLAIMABLE = `((status = 'queued' AND (lease_until IS NULL OR lease_until <= $1)) OR (status = 'running' AND (lease_until IS NULL OR lease_until < $1)))`;

export class PgTurnQueue implements TurnQueue {
  constructor(private readonly db: PgDatabase) {}

  async enqueue(id: string): Promise<boolean> {
    const r = await this.db.query(`UPDATE turns SET status = 'queued', owner = NULL, lease_until = NULL WHERE id = $1 AND status IN ('waiting', 'queued')`, [id]);
    return r.rowCount === 1;
  }

  async claim(owner: string, now: number, leaseMs: number): Promise<ClaimedTurn | undefined> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: string; status: string; lease_until: number | null }>(
        `SELECT id, status, lease_until FROM turns WHERE ${CLAIMABLE} ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`,
        [now],
      );
      const row = rows[0];
      if (!row) return undefined;
      // The epoch stays only when `owner` takes back its own running turn whose lease ran out
      // with nobody else claiming it (its run may still be going on); any other claim fences
      // every earlier holder's writes off (src/store/lease-fence.ts).
      const { rows: claimed } = await tx.query<{ lease_epoch: string }>(
        `UPDATE turns SET status = 'running', owner = $1, lease_until = $2, started_at = COALESCE(started_at, $3),
           lease_epoch = CASE WHEN status = 'running' AND owner = $1 THEN lease_epoch ELSE lease_epoch + 1 END
         WHERE id = $4 RETURNING lease_epoch`,
        [owner, now + leaseMs, new Date(now).toISOString(), row.id],
      );
      const previousRun = row.status === 'queued' ? 'none' : row.lease_until === 0 ? 'released' : 'lost';
      return { id: row.id, previousRun, epoch: Number(claimed[0].lease_epoch) };
    });
  }

  async renewMany(ids: readonly string[], owner: string, now: number, leaseMs: number): Promise<Map<string, { cancelRequested: boolean }>> {
    const held = new Map<string, { cancelRequested: boolean }>();
    if (ids.length === 0) return held;
    const { rows } = await this.db.query<{ id: string; cancel: boolean }>(
      // Rows locked in id order, as an event batch locks its fenced turns: no lock cycle between them.
      `UPDATE turns t SET lease_until = $1
         FROM (SELECT id FROM turns WHERE id = ANY($2::text[]) AND owner = $3 AND status = 'running' ORDER BY id FOR UPDATE) l
        WHERE t.id = l.id RETURNING t.id, t.cancel_requested_at IS NOT NULL AS cancel`,
      [now + leaseMs, [...ids], owner],
    );
    for (const r of rows) held.set(r.id, { cancelRequested: r.cancel });
    return held;
  }

  async finish(id: string, owner: string): Promise<void> {
    await this.db.query(`UPDATE turns SET owner = NULL, lease_until = NULL WHERE id = $1 AND owner = $2`, [id, owner]);
  }

  async release(id: string, owner: string): Promise<void> {
    await this.db.query(`UPDATE turns SET owner = NULL, lease_until = 0 WHERE id = $1 AND owner = $2 AND status = 'running'`, [id, owner]);
  }

  async defer(id: string, owner: string, until: number): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE turns SET status = 'queued', owner = NULL, lease_until = $1, started_at = NULL WHERE id = $2 AND owner = $3 AND status = 'running'`,
      [until, id, owner],
    );
    return r.rowCount === 1;
  }

  async wait(id: string, owner: string): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE turns SET status = 'waiting', owner = NULL, lease_until = NULL WHERE id = $1 AND owner = $2 AND status = 'running'`,
      [id, owner],
    );
    return r.rowCount === 1;
  }

  async recoverOrphans(_now: number): Promise<number> {
    // Shared by several instances: a lease still held may belong to a live instance. Leases of
    // dead instances run out by themselves and their turns are claimed (as `lost`) then.
    return 0;
  }
}
