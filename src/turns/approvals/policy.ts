/**
 * Approval policies (README "Tool approvals"): which calls of a turn wait for the user.
 *
 * A policy is the request's `approvals` — `{<tool>: "always" | "never"}` or `"destructive"` — or,
 * when the request has none, the server's APPROVAL_POLICY (`none`, `destructive`, or
 * `<tool>=always|never,…`). For a call of tool T:
 * 1. an entry for T (its identity `namespace.name`, or its `name`) decides: `always` asks,
 *    `never` runs without asking (also when the tool itself asks);
 * 2. `destructive`: every tool with `isDestructive` asks (those that can delete, overwrite or
 *    change data: `command`, `write_file`, `edit_file`, `apply_patch`, `schedule_update`,
 *    `workflow_cancel`; README "Tool approvals");
 * 3. otherwise the tool's own `needsApproval` (`true` or a predicate over the params) decides.
 */
import { z } from 'zod';
import type { AnyWorkerAgentTool } from '../../runtime/tool.js';
import { toolIdentity } from '../../runtime/tool-identity.js';
import { KNOWN_TOOL_NAMES } from '../../assembly/tool-names.js';

/** Per-tool overrides: tool name (or `namespace.name`) → `always` | `never`. */
export type ApprovalOverrides = Record<string, 'always' | 'never'>;

/** The request's `approvals` value. */
export type RequestApprovals = ApprovalOverrides | 'destructive';

/** An effective policy: `none` (only tools that ask themselves), `destructive`, or overrides. */
export type ApprovalPolicy = 'none' | RequestApprovals;

/** zod schema of the request field `approvals` (POST /v1/turns, schedules). */
export const ApprovalsSchema = z.union([
  z.literal('destructive'),
  z
    .record(z.string().regex(/^[a-zA-Z0-9_-]{1,64}(\.[a-zA-Z0-9_-]{1,64})?$/, 'a tool name (or namespace.name)'), z.enum(['always', 'never']))
    .refine((m) => Object.keys(m).length <= 256, 'approvals may name at most 256 tools'),
], { error: 'approvals must be "destructive" or an object {<tool name>: "always" | "never"}' });

/**
 * Parse APPROVAL_POLICY: `none`, `destructive`, or comma-separated `<tool>=always|never`, where
 * each `<tool>` is a name some family can offer (`KNOWN_TOOL_NAMES`, src/assembly/tool-names.ts):
 * a misspelt name would otherwise never match and silently turn approval off.
 * @returns the policy, or a message saying what is wrong (naming unknown tools and the known ones).
 */
export function parseApprovalPolicy(text: string): { ok: true; policy: ApprovalPolicy } | { ok: false; message: string } {
  const t = text.trim();
  if (t === '' || t === 'none') return { ok: true, policy: 'none' };
  if (t === 'destructive') return { ok: true, policy: 'destructive' };
  const overrides: ApprovalOverrides = {};
  for (const part of t.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-zA-Z0-9_-]{1,64}(?:\.[a-zA-Z0-9_-]{1,64})?)=(always|never)$/.exec(part);
    if (!m) return { ok: false, message: `"${part}" is not <tool>=always|never (or use none / destructive)` };
    overrides[m[1]] = m[2] as 'always' | 'never';
  }
  const unknown = Object.keys(overrides).filter((n) => !KNOWN_TOOL_NAMES.includes(n));
  if (unknown.length > 0) {
    return { ok: false, message: `${unknown.map((n) => `"${n}"`).join(', ')} ${unknown.length === 1 ? 'is not a tool name' : 'are not tool names'}; known tools: ${KNOWN_TOOL_NAMES.join(', ')}` };
  }
  return { ok: true, policy: overrides };
}

/** The policy of a turn: its request's `approvals`, else the server's. */
export function effectivePolicy(requested: RequestApprovals | undefined, server: ApprovalPolicy): ApprovalPolicy {
  return requested ?? server;
}

/**
 * False when no call of `tool` can need approval under `policy`, whatever its arguments (no
 * `always` entry, not destructive under `destructive`, no `needsApproval` of its own): the gate
 * then skips the call without validating its arguments or asking {@link requiresApproval}.
 * True means "ask requiresApproval" (it may still say no).
 */
export function approvalPossible(policy: ApprovalPolicy, tool: AnyWorkerAgentTool): boolean {
  if (typeof policy === 'object') {
    const entry = policy[toolIdentity(tool)] ?? policy[tool.name];
    if (entry) return entry === 'always';
  }
  if (policy === 'destructive' && tool.isDestructive) return true;
  return tool.needsApproval !== undefined && tool.needsApproval !== false;
}

/** Whether a call of `tool` with `params` must be approved first (rules in the module doc). */
export async function requiresApproval(policy: ApprovalPolicy, tool: AnyWorkerAgentTool, params: unknown, context: { callId: string; turn: unknown }): Promise<boolean> {
  if (typeof policy === 'object') {
    const entry = policy[toolIdentity(tool)] ?? policy[tool.name];
    if (entry) return entry === 'always';
  }
  if (policy === 'destructive' && tool.isDestructive) return true;
  const own = tool.needsApproval;
  if (typeof own === 'function') return (await own(params, context)) === true;
  return own === true;
}

/** Names in `overrides` that are not tools of the turn (by identity or name), sorted. */
export function unknownToolNames(overrides: ApprovalOverrides, tools: readonly AnyWorkerAgentTool[]): string[] {
  const known = new Set(tools.flatMap((t) => [toolIdentity(t), t.name]));
  return Object.keys(overrides).filter((n) => !known.has(n)).sort();
}
