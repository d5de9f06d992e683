/**
 * Turn checkpoints on Postgres: `turn_items(turn_id, idx, data)` (append only) and
 * `turn_checkpoints(turn_id, version, step, item_count, state)`, written in one transaction that
 * first locks the turn's checkpoint row (or, for the first one, takes a per-turn advisory lock),
 * so two writers of one turn cannot interleave; a save that does not continue the stored items is
 * refused. The new items go in one multi-row INSERT. A save with a lease fence first checks and
 * locks the turn's lease in the same transaction (./pg-lease-fence.ts): a run that lost its turn
 * to another instance stores no checkpoint.
 */
import type { TranscriptItem } from '../../model/port.js';
import type { StoredCheckpoint, TurnCheckpointStore } from '../checkpoint-store.js';
import type { LeaseFence } from '../lease-fence.js';
import type { PgDatabase } from './pg-database.js';
import { holdLease } from './pg-lease-fence.js';

export class PgCheckpointStore implements TurnCheckpointStore {
  constructor(private readonly db: PgDatabase) {}

  async save(turnId: string, c: StoredCheckpoint, newItems: readonly TranscriptItem[], fence?: LeaseFence): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (fence) await holdLease(tx, fence);
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('turn-checkpoint:' || $1))`, [turnId]);
      const { rows } = await tx.query<{ n: number }>('SELECT count(*) AS n FROM turn_items WHERE turn_id = $1', [turnId]);
      const from = c.itemCount - newItems.length;
      if (from !== rows[0].n) throw new Error(`checkpoint of turn ${turnId} expects ${from} stored items, found ${rows[0].n}`);
      if (newItems.length > 0) {
        const values = newItems.map((_, i) => `($1, $${i * 2 + 2}, $${i * 2 + 3})`).join(', ');
        const args: unknown[] = [turnId];
        newItems.forEach((item, i) => args.push(from + i, JSON.stringify(item)));
        await tx.query(`INSERT INTO turn_items (turn_id, idx, data) VALUES ${values}`, args);
      }
      await tx.query(
        `INSERT INTO turn_checkpoints (turn_id, version, step, item_count, state, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (turn_id) DO UPDATE SET version = EXCLUDED.version, step = EXCLUDED.step,
           item_count = EXCLUDED.item_count, state = EXCLUDED.state, updated_at = EXCLUDED.updated_at`,
        [turnId, c.version, c.step, c.itemCount, c.state, new Date().toISOString()],
      );
    });
  }

  async load(turnId: string): Promise<StoredCheckpoint | undefined> {
    const { rows } = await this.db.query<StoredCheckpoint>(
      'SELECT version, step, item_count AS "itemCount", state FROM turn_checkpoints WHERE turn_id = $1',
      [turnId],
    );
    return rows[0];
  }

  async items(turnId: string, count = Number.MAX_SAFE_INTEGER): Promise<TranscriptItem[]> {
    const { rows } = await this.db.query<{ data: string }>('SELECT data FROM turn_items WHERE turn_id = $1 AND idx < $2 ORDER BY idx', [
      turnId,
      Math.min(count, 2_147_483_647),
    ]);
    return rows.map((r) => JSON.parse(r.data) as TranscriptItem);
  }

  async itemCount(turnId: string): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>('SELECT count(*) AS n FROM turn_items WHERE turn_id = $1', [turnId]);
    return rows[0].n;
  }
}
