/**
 * Postgres implementation of {@link ApprovalStore} (table `turn_approvals`, migration 005). A
 * decision is one conditional UPDATE (`WHERE decision IS NULL`): under concurrent deciders on any
 * instance, exactly one row update happens and the others see the recorded decision. A request
 * made with the run's lease fence is stored only while that lease is held (./pg-lease-fence.ts).
 */
import { APPROVAL_COLUMNS, approvalFromRow, type ApprovalRow } from '../approval-rows.js';
import type { ApprovalDecisionInput, ApprovalStore, NewApproval, StoredApproval } from '../approval-store.js';
import type { LeaseFence } from '../lease-fence.js';
import type { PgDatabase, PgQueryable } from './pg-database.js';
import { holdLease } from './pg-lease-fence.js';

export class PgApprovalStore implements ApprovalStore {
  constructor(private readonly db: PgDatabase) {}

  async request(a: NewApproval, fence?: LeaseFence): Promise<{ approval: StoredApproval; created: boolean }> {
    const insert = (db: PgQueryable) =>
      db.query(
        `INSERT INTO turn_approvals (turn_id, call_id, name, arguments, label, requested_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (turn_id, call_id) DO NOTHING`,
        [a.turn_id, a.call_id, a.name, JSON.stringify(a.arguments ?? null), a.label, a.requested_at, a.expires_at],
      );
    const r = fence
      ? await this.db.transaction(async (tx) => {
          await holdLease(tx, fence);
          return insert(tx);
        })
      : await insert(this.db);
    return { approval: (await this.get(a.turn_id, a.call_id))!, created: r.rowCount === 1 };
  }

  async get(turnId: string, callId: string): Promise<StoredApproval | undefined> {
    const { rows } = await this.db.query<ApprovalRow>(`SELECT ${APPROVAL_COLUMNS} FROM turn_approvals WHERE turn_id = $1 AND call_id = $2`, [turnId, callId]);
    return rows[0] ? approvalFromRow(rows[0]) : undefined;
  }

  async list(turnId: string): Promise<StoredApproval[]> {
    const { rows } = await this.db.query<ApprovalRow>(`SELECT ${APPROVAL_COLUMNS} FROM turn_approvals WHERE turn_id = $1 ORDER BY seq`, [turnId]);
    return rows.map(approvalFromRow);
  }

  async decide(turnId: string, callId: string, d: ApprovalDecisionInput): Promise<{ won: boolean; approval: StoredApproval } | undefined> {
    const r = await this.db.query(
      `UPDATE turn_approvals SET decision = $1, reason = $2, edited_arguments = $3, decided_at = $4, decided_by = $5,
         label = CASE WHEN $8::boolean THEN $9::text ELSE label END
       WHERE turn_id = $6 AND call_id = $7 AND decision IS NULL`,
      [d.decision, d.reason, d.edited_arguments === null ? null : JSON.stringify(d.edited_arguments), d.decided_at, d.decided_by, turnId, callId, d.label !== undefined, d.label ?? null],
    );
    const approval = await this.get(turnId, callId);
    return approval ? { won: r.rowCount === 1, approval } : undefined;
  }

  async expired(now: string, limit: number): Promise<{ turn_id: string; call_id: string }[]> {
    const { rows } = await this.db.query<{ turn_id: string; call_id: string }>(
      `SELECT a.turn_id, a.call_id FROM turn_approvals a JOIN turns t ON t.id = a.turn_id
       WHERE a.decision IS NULL AND a.expires_at <= $1 AND t.status NOT IN ('completed', 'failed', 'cancelled')
       ORDER BY a.expires_at LIMIT $2`,
      [now, limit],
    );
    return rows;
  }

  async pendingCount(turnId: string): Promise<number> {
    const { rows } = await this.db.query<{ n: string }>('SELECT COUNT(*) AS n FROM turn_approvals WHERE turn_id = $1 AND decision IS NULL', [turnId]);
    return Number(rows[0].n);
  }
}
