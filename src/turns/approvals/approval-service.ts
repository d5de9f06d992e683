/**
 * Decisions on tool approvals (README "Tool approvals"), from clients (POST
 * /v1/turns/{id}/approvals) and from the expiry sweep, on any instance:
 * 1. the decision is stored with a conditional update — of two different decisions for one call
 *    exactly one is recorded, the other gets 409 `approval_conflict`; repeating the recorded
 *    decision answers 200 with the same result, also after the turn moved on; edited arguments
 *    are stored as the tool's schema parsed them (what runs) and repeats are compared in that form,
 *    and the approval's `label` becomes the tool's activity label for them (what the call runs as);
 * 2. `approval.resolved` is appended to the turn's event log;
 * 3. when no decision of the turn is pending any more, the waiting turn is queued again
 *    ({@link TurnQueue.enqueue}) and a runner resumes it from its checkpoint.
 * A turn that goes to `waiting` after its last decision arrived (the decision raced the end of
 * the round) is queued by {@link ApprovalService.afterWait}, which the runner calls after every
 * pause: one of the two always sees the other's write.
 */
import type { TurnEvent } from '../../runtime/events.js';
import { toolLabel } from '../../runtime/call-labels.js';
import type { AnyWorkerAgentTool } from '../../runtime/tool.js';
import type { ApprovalDecisionInput, ApprovalStore, StoredApproval } from '../../store/approval-store.js';
import type { EventLog } from '../../store/event-log.js';
import type { TurnQueue } from '../../store/turn-queue.js';
import type { TurnStore } from '../../store/turn-store.js';
import { HttpError } from '../../http/errors.js';
import { isFinished } from '../turn-outcome.js';
import { approvalConflict, approvalNotFound, turnFinished } from './errors.js';
import { checkEditedArguments } from './edited-arguments.js';
import { approvalView, type ApprovalView } from './view.js';

/** The reason stored when a call waited longer than APPROVAL_TIMEOUT_S. */
export const TIMED_OUT = 'timed out';

export interface ApprovalServiceDeps {
  store: ApprovalStore;
  turns: TurnStore;
  queue: TurnQueue;
  events: EventLog<TurnEvent>;
  /** Wake this instance's runner (a turn was queued). */
  wake: () => void;
  /** The tool `name` (identity) of turn `turnId`, to validate edited arguments; undefined when it cannot be built. */
  toolOf: (turnId: string, name: string) => Promise<AnyWorkerAgentTool | undefined>;
  log?: { error: (o: object, m?: string) => void };
}

/** A client's decision (body of POST /v1/turns/{id}/approvals). */
export interface DecisionBody {
  call_id: string;
  decision: 'approve' | 'reject';
  reason?: string;
  arguments?: Record<string, unknown>;
}

export class ApprovalService {
  constructor(private readonly d: ApprovalServiceDeps) {}

  /** Every approval of a turn (pending and decided), in request order. */
  async list(turnId: string): Promise<ApprovalView[]> {
    return (await this.d.store.list(turnId)).map(approvalView);
  }

  /** Pending approvals of a turn (none once it finished). */
  async pending(turnId: string, finished: boolean): Promise<ApprovalView[]> {
    if (finished) return [];
    return (await this.d.store.list(turnId)).filter((a) => a.decision === null).map(approvalView);
  }

  /**
   * Record a client's decision.
   * @throws HttpError 404 `approval_not_found` (the turn never asked about this call), 409
   *   `approval_conflict` (another decision is recorded), 409 `turn_finished` (the turn ended
   *   before this call was decided), 400 `invalid_arguments` (edited arguments fail the tool's schema).
   */
  async decide(turnId: string, body: DecisionBody): Promise<ApprovalView> {
    const existing = await this.d.store.get(turnId, body.call_id);
    if (!existing) throw approvalNotFound(turnId, body.call_id);
    if (existing.decision !== null) return this.repeated(turnId, existing, body);
    const turn = await this.d.turns.get(turnId);
    if (!turn || isFinished(turn)) throw turnFinished(turnId, body.call_id, turn?.status ?? 'unknown', turn);
    const edited = body.decision === 'approve' && body.arguments ? await this.editedCall(turnId, existing.name, body.arguments) : null;
    const recorded = await this.record(turnId, body.call_id, {
      ...decisionOf(body, edited?.args ?? null),
      ...(edited ? { label: edited.label } : {}),
      decided_at: new Date().toISOString(),
      decided_by: 'client',
    });
    if (!recorded.won) return this.repeated(turnId, recorded.approval, body, edited?.args);
    return approvalView(recorded.approval);
  }

  /** Reject every pending approval whose time ran out (`timed out`); returns how many this instance decided. */
  async sweep(now = new Date()): Promise<number> {
    let n = 0;
    for (const { turn_id, call_id } of await this.d.store.expired(now.toISOString(), 100)) {
      try {
        const r = await this.record(turn_id, call_id, { decision: 'reject', reason: TIMED_OUT, edited_arguments: null, decided_at: now.toISOString(), decided_by: 'timeout' });
        if (r.won) n++;
      } catch (err) {
        this.d.log?.error({ err, turn_id, call_id }, 'expiring an approval failed');
      }
    }
    return n;
  }

  /**
   * After a run paused (status `waiting`): queue the turn again when nothing is pending any more
   * or a cancel was requested meanwhile.
   */
  async afterWait(turnId: string): Promise<void> {
    const cancel = await this.d.turns.cancelRequestedAt(turnId);
    if (cancel || (await this.d.store.pendingCount(turnId)) === 0) await this.requeue(turnId);
  }

  private async record(turnId: string, callId: string, decision: ApprovalDecisionInput): Promise<{ won: boolean; approval: StoredApproval }> {
    const r = await this.d.store.decide(turnId, callId, decision);
    if (!r) throw approvalNotFound(turnId, callId);
    if (!r.won) return r;
    const a = r.approval;
    await this.d.events.append(turnId, {
      type: 'approval.resolved',
      call_id: callId,
      decision: decision.decision,
      ...(decision.reason !== null ? { reason: decision.reason } : {}),
      ...(a.edited_arguments ? { arguments: a.edited_arguments, label: a.label } : {}),
    });
    if ((await this.d.store.pendingCount(turnId)) === 0) await this.requeue(turnId);
    return r;
  }

  private async requeue(turnId: string): Promise<void> {
    if (await this.d.queue.enqueue(turnId)) this.d.wake();
  }

  /** `args` as the tool's schema parsed them (what the call runs with). @throws HttpError as {@link checkEditedArguments}. */
  private async validated(turnId: string, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    return checkEditedArguments(await this.d.toolOf(turnId, name), name, args);
  }

  /**
   * Edited arguments as the call runs with them: `args` parsed by the tool's schema, and the
   * tool's activity label for them (as `approval.requested` labels the model's arguments:
   * call-labels.ts `toolLabel`, the tool name when it cannot be made, null for a tool without one).
   * @throws HttpError as {@link checkEditedArguments}.
   */
  private async editedCall(turnId: string, name: string, args: Record<string, unknown>): Promise<{ args: Record<string, unknown>; label: string | null }> {
    const tool = await this.d.toolOf(turnId, name);
    const parsed = await checkEditedArguments(tool, name, args);
    return { args: parsed, label: toolLabel(() => tool!.describeActivity(parsed), name) };
  }

  /**
   * A decision for a call that is already decided. It is a repeat — answered as the first was —
   * when it has the recorded decision, the same reason (when the repeat gives one) and, when it
   * gives `arguments`, arguments that validate to the ones the call runs with (the stored edited
   * arguments, else the model's): compared after the tool's schema parsed them, so `"5"` and `5`
   * for a number are the same, and key order does not matter. An approve without `arguments`
   * repeats any approval, edited or not. Any other difference is a conflict, so no client is told
   * that its different decision, arguments or reason were recorded.
   * @param edited `body.arguments` already validated (the decision that lost a race).
   * @throws HttpError 409 `approval_conflict`; 409 `tool_unavailable` when arguments that differ
   *   in form cannot be checked now.
   */
  private async repeated(turnId: string, a: StoredApproval, body: DecisionBody, edited?: Record<string, unknown> | null): Promise<ApprovalView> {
    const want = decisionOf(body, null);
    if (a.decision !== want.decision) throw approvalConflict(a);
    if (body.reason !== undefined && a.reason !== want.reason) throw approvalConflict(a, 'reason');
    if (want.decision === 'approve' && body.arguments) {
      const runs = canonical(a.edited_arguments ?? a.arguments);
      if (canonical(body.arguments) !== runs) {
        const parsed = edited ?? (await this.validated(turnId, a.name, body.arguments).catch((err: unknown) => {
          if (err instanceof HttpError && err.code === 'invalid_arguments') return undefined;
          throw err;
        }));
        if (parsed === undefined || canonical(parsed) !== runs) throw approvalConflict(a, 'arguments');
      }
    }
    return approvalView(a);
  }
}

/** The stored form of a client's decision (reason normalised; `edited`: the validated edited arguments). */
function decisionOf(body: DecisionBody, edited: Record<string, unknown> | null): Pick<ApprovalDecisionInput, 'decision' | 'reason' | 'edited_arguments'> {
  return {
    decision: body.decision,
    reason: body.decision === 'reject' ? body.reason?.trim() || 'no reason given' : (body.reason ?? null),
    edited_arguments: body.decision === 'approve' ? edited : null,
  };
}

/** JSON with object keys sorted, so equal values compare equal whatever their key order. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([p], [q]) => (p < q ? -1 : p > q ? 1 : 0))) : x));
}
