/**
 * SQLite implementation of {@link ApprovalStore}: table `turn_approvals`, primary key
 * (turn_id, call_id), beside `turns` in DATA_DIR/service.db. A decision is one conditional UPDATE
 * (`WHERE decision IS NULL`), so concurrent deciders cannot both win.
 */
import type { Database } from './database.js';
import { APPROVAL_COLUMNS, approvalFromRow, type ApprovalRow } from './approval-rows.js';
import type { ApprovalDecisionInput, ApprovalStore, NewApproval, StoredApproval } from './approval-store.js';

export class SqliteApprovalStore implements ApprovalStore {
  constructor(private readonly db: Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS turn_approvals (
      turn_id TEXT NOT NULL,
      call_id TEXT NOT NULL,
      name TEXT NOT NULL,
      arguments TEXT NOT NULL,
      label TEXT,
      requested_at TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      decision TEXT,
      reason TEXT,
      edited_arguments TEXT,
      decided_at TEXT,
      decided_by TEXT,
      seq INTEGER NOT NULL,
      PRIMARY KEY (turn_id, call_id)
    );
    CREATE INDEX IF NOT EXISTS turn_approvals_pending ON turn_approvals (expires_at) WHERE decision IS NULL;`);
  }

  async request(a: NewApproval): Promise<{ approval: StoredApproval; created: boolean }> {
    const r = this.db
      .prepare(
        `INSERT INTO turn_approvals (turn_id, call_id, name, arguments, label, requested_at, expires_at, seq)
         VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT COUNT(*) FROM turn_approvals WHERE turn_id = ?))
         ON CONFLICT (turn_id, call_id) DO NOTHING`,
      )
      .run(a.turn_id, a.call_id, a.name, JSON.stringify(a.arguments ?? null), a.label, a.requested_at, a.expires_at, a.turn_id);
    return { approval: (await this.get(a.turn_id, a.call_id))!, created: r.changes === 1 };
  }

  async get(turnId: string, callId: string): Promise<StoredApproval | undefined> {
    const row = this.db.prepare(`SELECT ${APPROVAL_COLUMNS} FROM turn_approvals WHERE turn_id = ? AND call_id = ?`).get(turnId, callId) as ApprovalRow | undefined;
    return row ? approvalFromRow(row) : undefined;
  }

  async list(turnId: string): Promise<StoredApproval[]> {
    return (this.db.prepare(`SELECT ${APPROVAL_COLUMNS} FROM turn_approvals WHERE turn_id = ? ORDER BY seq`).all(turnId) as ApprovalRow[]).map(approvalFromRow);
  }

  async decide(turnId: string, callId: string, d: ApprovalDecisionInput): Promise<{ won: boolean; approval: StoredApproval } | undefined> {
    const r = this.db
      .prepare(
        `UPDATE turn_approvals SET decision = ?, reason = ?, edited_arguments = ?, decided_at = ?, decided_by = ?,
           label = CASE WHEN ? = 1 THEN ? ELSE label END
         WHERE turn_id = ? AND call_id = ? AND decision IS NULL`,
      )
      .run(d.decision, d.reason, d.edited_arguments === null ? null : JSON.stringify(d.edited_arguments), d.decided_at, d.decided_by, d.label === undefined ? 0 : 1, d.label ?? null, turnId, callId);
    const approval = await this.get(turnId, callId);
    return approval ? { won: r.changes === 1, approval } : undefined;
  }

  async expired(now: string, limit: number): Promise<{ turn_id: string; call_id: string }[]> {
    return this.db
      .prepare(
        `SELECT a.turn_id, a.call_id FROM turn_approvals a JOIN turns t ON t.id = a.turn_id
         WHERE a.decision IS NULL AND a.expires_at <= ? AND t.status NOT IN ('completed', 'failed', 'cancelled')
         ORDER BY a.expires_at LIMIT ?`,
      )
      .all(now, limit) as { turn_id: string; call_id: string }[];
  }

  async pendingCount(turnId: string): Promise<number> {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM turn_approvals WHERE turn_id = ? AND decision IS NULL').get(turnId) as { n: number }).n;
  }
}
