/**
 * Postgres implementation of {@link TurnInputStore} (table from migration 006). An add takes a
 * per-turn transaction-scoped advisory lock before reading `max(seq)`, so concurrent adds on any
 * instance get consecutive seqs; marking is one `UPDATE … RETURNING` (a row is returned by the
 * one statement that changed it). A close (a row of `turn_input_closures`, migration 015) takes
 * the same lock, so an add is either before it (in its `pending`) or after it (refused).
 *
 * Fencing (src/store/lease-fence.ts): a close or a mark made with a run's lease fence first checks
 * and locks that run's turn row in the same transaction (./pg-lease-fence.ts `holdLease`, before
 * the advisory lock, in the order the checkpoint store takes them), so it is refused with
 * `LeaseLostError` — nothing closed, nothing marked — once another instance claimed the turn.
 */
import type { LeaseFence } from '../lease-fence.js';
import type { InputQueueClose, NewTurnInput, StoredTurnInput, TurnInputStore } from '../../turns/inputs/input-store.js';
import type { PgDatabase, PgQueryable } from './pg-database.js';
import { holdLease } from './pg-lease-fence.js';

const COLUMNS = 'id, turn_id, seq, content, source, created_at, applied_at';

export class PgTurnInputStore implements TurnInputStore {
  constructor(private readonly db: PgDatabase) {}

  async add(input: NewTurnInput): Promise<StoredTurnInput | undefined> {
    return this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('turn-input:' || $1))`, [input.turn_id]);
      const closed = await tx.query('SELECT 1 FROM turn_input_closures WHERE turn_id = $1', [input.turn_id]);
      if (closed.rows.length > 0) return undefined;
      const { rows } = await tx.query<StoredTurnInput>(
        `INSERT INTO turn_inputs (turn_id, seq, id, content, source, created_at)
         SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4, $5 FROM turn_inputs WHERE turn_id = $1
         RETURNING ${COLUMNS}`,
        [input.turn_id, input.id, input.content, input.source, input.created_at],
      );
      return rows[0];
    });
  }

  async close(turnId: string, afterSeq: number, at: string, opts: { ifIdle?: boolean; fence?: LeaseFence } = {}): Promise<InputQueueClose> {
    return this.db.transaction(async (tx) => {
      if (opts.fence) await holdLease(tx, opts.fence);
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('turn-input:' || $1))`, [turnId]);
      const { rows } = await tx.query<StoredTurnInput>(`SELECT ${COLUMNS} FROM turn_inputs WHERE turn_id = $1 AND seq > $2 AND applied_at IS NULL ORDER BY seq`, [turnId, afterSeq]);
      const closed = await tx.query('SELECT 1 FROM turn_input_closures WHERE turn_id = $1', [turnId]);
      if (closed.rows.length === 0 && opts.ifIdle && rows.length > 0) return { closed: false, pending: rows };
      await tx.query('INSERT INTO turn_input_closures (turn_id, closed_at) VALUES ($1, $2) ON CONFLICT (turn_id) DO NOTHING', [turnId, at]);
      return { closed: true, pending: rows };
    });
  }

  async listAfter(turnId: string, afterSeq: number): Promise<StoredTurnInput[]> {
    const { rows } = await this.db.query<StoredTurnInput>(`SELECT ${COLUMNS} FROM turn_inputs WHERE turn_id = $1 AND seq > $2 ORDER BY seq`, [turnId, afterSeq]);
    return rows;
  }

  async markApplied(turnId: string, uptoSeq: number, at: string, fence?: LeaseFence): Promise<StoredTurnInput[]> {
    const mark = async (q: PgQueryable) => {
      const { rows } = await q.query<StoredTurnInput>(
        `UPDATE turn_inputs SET applied_at = $1 WHERE turn_id = $2 AND seq <= $3 AND applied_at IS NULL RETURNING ${COLUMNS}`,
        [at, turnId, uptoSeq],
      );
      return rows.sort((a, b) => a.seq - b.seq);
    };
    if (!fence) return mark(this.db);
    return this.db.transaction(async (tx) => {
      await holdLease(tx, fence);
      return mark(tx);
    });
  }
}
