/**
 * ApprovalStore: the durable record of tool approvals (README "Tool approvals") — one row per
 * (turn, call) that had to wait for the user, pending until decided. Decisions are written with a
 * conditional update (`decision IS NULL`), so of two clients deciding at once exactly one wins, on
 * any engine and any instance; expiry is stored (`expires_at`) so every instance can sweep it.
 *
 * Implementations: SQLite (src/store/sqlite-approval-store.ts), Postgres
 * (src/store/postgres/pg-approval-store.ts). Contract: test/store/contracts/approval-store.contract.ts.
 * Times are ISO 8601 strings (UTC, `toISOString()`), which sort as text.
 */
import type { LeaseFence } from './lease-fence.js';

/** `approve` or `reject`. */
export type ApprovalDecisionKind = 'approve' | 'reject';

/** Who recorded a decision: a client (POST …/approvals) or the expiry sweep. */
export type ApprovalDecidedBy = 'client' | 'timeout';

export interface NewApproval {
  turn_id: string;
  call_id: string;
  /** Tool identity (`name` / `namespace.name`). */
  name: string;
  /** The validated arguments (JSON). */
  arguments: unknown;
  /**
   * The activity label of the call: of the model's arguments while pending, of the edited
   * arguments once approved with them (what the call runs as; {@link ApprovalDecisionInput.label}).
   */
  label: string | null;
  requested_at: string;
  expires_at: string;
}

export interface StoredApproval extends NewApproval {
  /** null while pending. */
  decision: ApprovalDecisionKind | null;
  reason: string | null;
  /** Arguments the approver replaced the call's with (approve only). */
  edited_arguments: Record<string, unknown> | null;
  decided_at: string | null;
  decided_by: ApprovalDecidedBy | null;
}

export interface ApprovalDecisionInput {
  decision: ApprovalDecisionKind;
  reason: string | null;
  edited_arguments: Record<string, unknown> | null;
  /**
   * With `edited_arguments`: the activity label of the call with them (what it runs as), stored
   * in place of the label of the model's arguments. Undefined keeps the stored label.
   */
  label?: string | null;
  decided_at: string;
  decided_by: ApprovalDecidedBy;
}

export interface ApprovalStore {
  /**
   * Store a pending approval unless one exists for (turn_id, call_id); returns the stored row and
   * whether this call created it. With `fence` (the requesting run's lease,
   * src/store/lease-fence.ts) a shared engine stores it only while that lease is held, else
   * rejects with `LeaseLostError`; SQLite ignores it.
   */
  request(a: NewApproval, fence?: LeaseFence): Promise<{ approval: StoredApproval; created: boolean }>;
  get(turnId: string, callId: string): Promise<StoredApproval | undefined>;
  /** Every approval of a turn, in the order they were requested. */
  list(turnId: string): Promise<StoredApproval[]>;
  /**
   * Record a decision only while the approval is pending (with `d.label` given, the label too).
   * `won`: this call recorded it; otherwise
   * `approval` holds the decision stored before. Undefined when there is no such approval.
   */
  decide(turnId: string, callId: string, d: ApprovalDecisionInput): Promise<{ won: boolean; approval: StoredApproval } | undefined>;
  /** Pending approvals with `expires_at <= now` of turns not finished, oldest expiry first (at most `limit`). */
  expired(now: string, limit: number): Promise<{ turn_id: string; call_id: string }[]>;
  /** Number of pending approvals of a turn. */
  pendingCount(turnId: string): Promise<number>;
}
