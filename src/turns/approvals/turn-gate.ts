/**
 * The {@link ApprovalGate} of one run of a turn, on the durable {@link ApprovalStore}: the policy
 * decides which calls ask (./policy.ts), a pending request is stored with its expiry
 * (`now + APPROVAL_TIMEOUT_S`), and decisions are read back from the store — so a turn resumed
 * after a restart, or on another instance, sees every decision made while it waited.
 */
import type { ApprovalDecision, ApprovalGate } from '../../runtime/approval-gate.js';
import type { ApprovalStore } from '../../store/approval-store.js';
import type { LeaseFence } from '../../store/lease-fence.js';
import { approvalPossible, requiresApproval, type ApprovalPolicy } from './policy.js';

export interface TurnGateOptions {
  store: ApprovalStore;
  turnId: string;
  policy: ApprovalPolicy;
  /** APPROVAL_TIMEOUT_S. */
  timeoutS: number;
  /** Given to a tool's `needsApproval` predicate as `context.turn`. */
  turnContext: unknown;
  /** ms epoch [Date.now]. */
  now?: () => number;
  /** The run's lease (Postgres): a request row is stored only while it is held (src/store/lease-fence.ts). */
  fence?: LeaseFence;
}

export function createTurnApprovalGate(o: TurnGateOptions): ApprovalGate {
  const now = o.now ?? Date.now;
  return {
    mayRequire: (tool) => approvalPossible(o.policy, tool),
    required: (tool, params, callId) => requiresApproval(o.policy, tool, params, { callId, turn: o.turnContext }),
    async decision(callId): Promise<ApprovalDecision | undefined> {
      const a = await o.store.get(o.turnId, callId);
      if (!a || a.decision === null) return undefined;
      if (a.decision === 'reject') return { decision: 'reject', reason: a.reason ?? 'no reason given', ...(a.decided_by === 'timeout' ? { timedOut: true } : {}) };
      return { decision: 'approve', ...(a.edited_arguments ? { arguments: a.edited_arguments } : {}) };
    },
    async request(r) {
      const at = now();
      const { approval, created } = await o.store.request({
        turn_id: o.turnId,
        call_id: r.callId,
        name: r.name,
        arguments: r.arguments,
        label: r.label,
        requested_at: new Date(at).toISOString(),
        expires_at: new Date(at + o.timeoutS * 1000).toISOString(),
      }, o.fence);
      return { expiresAt: approval.expires_at, created };
    },
  };
}
