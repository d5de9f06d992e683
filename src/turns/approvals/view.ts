/** The public shape of one approval (GET /v1/turns/{id} `pending_approvals`, the approvals API). */
import type { StoredApproval } from '../../store/approval-store.js';

export interface ApprovalView {
  call_id: string;
  /** Tool identity (`name` / `namespace.name`). */
  name: string;
  /**
   * The tool's activity label (unsafe characters escaped; null for a tool without one): for the
   * model's arguments, or once approved with edited arguments for those (what the call runs as).
   */
  label: string | null;
  /** The validated arguments the model sent. */
  arguments: unknown;
  status: 'pending' | 'approved' | 'rejected';
  reason: string | null;
  /** Arguments the call runs with instead (approved with edits), else null. */
  edited_arguments: Record<string, unknown> | null;
  requested_at: string;
  /** ISO 8601: after it a pending call is rejected with reason `timed out`. */
  expires_at: string;
  decided_at: string | null;
  /** `client` or `timeout`; null while pending. */
  decided_by: 'client' | 'timeout' | null;
}

export function approvalView(a: StoredApproval): ApprovalView {
  return {
    call_id: a.call_id,
    name: a.name,
    label: a.label,
    arguments: a.arguments,
    status: a.decision === null ? 'pending' : a.decision === 'approve' ? 'approved' : 'rejected',
    reason: a.reason,
    edited_arguments: a.edited_arguments,
    requested_at: a.requested_at,
    expires_at: a.expires_at,
    decided_at: a.decided_at,
    decided_by: a.decided_by,
  };
}
