/**
 * Tool approvals inside a round (README "Tool approvals"): which calls of a pending round must
 * wait for the user, which were rejected, and which run with edited arguments.
 *
 * Rules, applied to the calls about to run (calls already answered in the event log are not seen):
 * - a call that would not reach its tool anyway (unknown tool, invalid arguments, refused by a
 *   policy) is left to the dispatcher: it gets its normal `Error:` output and no approval is asked;
 * - a call whose tool needs approval ({@link ApprovalGate.required}) and has no decision yet is
 *   announced once (`approval.requested`, stored by {@link ApprovalGate.request}) and waits;
 * - approved: it runs, with the edited arguments when the decision carries them;
 * - rejected: it is answered with {@link rejectedOutput} and does not run;
 * - when the turn is cancelled, nothing is asked: the dispatcher answers every call.
 *
 * The gate itself (storage, policy, expiry) is a port; src/turns/approvals/ implements it.
 */
import type { TurnEvent } from './events.js';
import type { FunctionCallRequest } from './dispatch.js';
import { validateToolArguments } from './arguments.js';
import { toolLabel } from './call-labels.js';
import type { AnyWorkerAgentTool } from './tool.js';
import { toolIdentity } from './tool-identity.js';

/** A decision recorded for one call. */
export type ApprovalDecision =
  | { decision: 'approve'; arguments?: Record<string, unknown> }
  /** `timedOut`: nobody decided within APPROVAL_TIMEOUT_S (the expiry rejected it, not a person). */
  | { decision: 'reject'; reason: string; timedOut?: boolean };

/** What is stored (and announced) when a call starts waiting for approval. */
export interface ApprovalRequest {
  callId: string;
  /** Tool identity (`name` / `namespace.name`). */
  name: string;
  /** Validated arguments. */
  arguments: unknown;
  label: string | null;
}

/** The approval port of one turn. Implementations must not throw for ordinary cases. */
export interface ApprovalGate {
  /**
   * Optional, synchronous: false when no call of `tool` can need approval whatever its arguments;
   * such calls are passed without validating their arguments or asking {@link ApprovalGate.required}.
   */
  mayRequire?(tool: AnyWorkerAgentTool): boolean;
  /** True when this call must be approved before it runs (the turn's policy, then the tool's `needsApproval`). */
  required(tool: AnyWorkerAgentTool, params: unknown, callId: string): Promise<boolean>;
  /** The decision recorded for `callId`; undefined while there is none. */
  decision(callId: string): Promise<ApprovalDecision | undefined>;
  /**
   * Store the pending request (idempotent per call id) and say when it expires (ISO 8601);
   * `created` is false when it was stored before (then it is not announced again).
   */
  request(r: ApprovalRequest): Promise<{ expiresAt: string; created: boolean }>;
}

/** Output of a call whose approval timed out: nobody decided, so the model must not read it as a "no". */
export const APPROVAL_TIMED_OUT_OUTPUT =
  'Error: this call was not run: its approval timed out without a decision (nobody approved or rejected it). Do not take this as a refusal; ask the user whether to try again.';

/**
 * The output of a rejected call: `Error: the user rejected this call: <reason>` for a person's
 * rejection; {@link APPROVAL_TIMED_OUT_OUTPUT} when the approval timed out (README "Tool approvals").
 */
export function rejectedOutput(reason: string, timedOut = false): string {
  return timedOut ? APPROVAL_TIMED_OUT_OUTPUT : `Error: the user rejected this call: ${reason}`;
}

/** Per call (same index as the calls given): what the gate decided. */
export interface GateVerdicts {
  /** Calls that wait for a decision (indexes). */
  waiting: Set<number>;
  /** Rejected calls: the `Error:` output to answer them with. */
  refusals: (string | undefined)[];
  /** Approved calls with edited arguments: the new arguments text. */
  edited: (string | undefined)[];
}

export interface GateOptions {
  signal: AbortSignal;
  emit: (event: TurnEvent) => Promise<void>;
  /** True for call indexes the dispatcher will refuse anyway (no approval is asked for them). */
  refused: (index: number) => boolean;
}

/** Decide, per call, whether it waits, is rejected, runs with edited arguments, or runs as is. */
export async function gateCalls(
  calls: readonly FunctionCallRequest[],
  tools: ReadonlyMap<string, AnyWorkerAgentTool>,
  gate: ApprovalGate,
  opts: GateOptions,
): Promise<GateVerdicts> {
  const verdicts: GateVerdicts = { waiting: new Set(), refusals: new Array(calls.length), edited: new Array(calls.length) };
  for (const [index, call] of calls.entries()) {
    if (opts.signal.aborted) break;
    if (opts.refused(index)) continue;
    const identity = toolIdentity(call);
    const tool = tools.get(identity);
    if (!tool || gate.mayRequire?.(tool) === false) continue;
    const validated = validateToolArguments(tool, call.arguments);
    if (!validated.ok) continue;
    let required: boolean;
    try {
      required = await gate.required(tool, validated.params, call.callId);
    } catch {
      required = true; // a policy that cannot decide asks the user rather than running unasked
    }
    if (!required) continue;
    const decided = await gate.decision(call.callId);
    if (decided?.decision === 'reject') verdicts.refusals[index] = rejectedOutput(decided.reason, decided.timedOut === true);
    else if (decided?.decision === 'approve') {
      if (decided.arguments) verdicts.edited[index] = JSON.stringify(decided.arguments);
    } else {
      const label = toolLabel(() => tool.describeActivity(validated.params), identity);
      const asked = await gate.request({ callId: call.callId, name: identity, arguments: validated.params, label });
      if (asked.created) {
        await opts.emit({ type: 'approval.requested', call_id: call.callId, name: identity, arguments: validated.params, label, expires_at: asked.expiresAt });
      }
      verdicts.waiting.add(index);
    }
  }
  return verdicts;
}
