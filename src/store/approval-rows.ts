/**
 * The stored row of an approval (table `turn_approvals`, same columns on SQLite and Postgres) and
 * its mapping to {@link StoredApproval}: `arguments` and `edited_arguments` are JSON text in the row.
 */
import type { StoredApproval } from './approval-store.js';

/** One `turn_approvals` row as both engines return it (times are ISO 8601 text). */
export interface ApprovalRow {
  turn_id: string;
  call_id: string;
  name: string;
  arguments: string;
  label: string | null;
  requested_at: string;
  expires_at: string;
  decision: 'approve' | 'reject' | null;
  reason: string | null;
  edited_arguments: string | null;
  decided_at: string | null;
  decided_by: 'client' | 'timeout' | null;
}

/** Every column, in table order (for `SELECT` and `RETURNING`). */
export const APPROVAL_COLUMNS = 'turn_id, call_id, name, arguments, label, requested_at, expires_at, decision, reason, edited_arguments, decided_at, decided_by';

/** A row as the store port's value (its JSON columns parsed). */
export function approvalFromRow(r: ApprovalRow): StoredApproval {
  return {
    ...r,
    arguments: JSON.parse(r.arguments) as unknown,
    edited_arguments: r.edited_arguments === null ? null : (JSON.parse(r.edited_arguments) as Record<string, unknown>),
  };
}
