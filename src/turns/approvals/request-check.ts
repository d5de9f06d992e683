/**
 * The `approvals` of a turn request may name only tools the turn gets: a name that is not in the
 * turn's tool set is refused when the turn (or schedule) is created, naming the tools it has.
 */
import { assembleTools } from '../../assembly/assemble.js';
import type { ServiceRegistry } from '../../assembly/services.js';
import type { Config, ToolFamily } from '../../config.js';
import { HttpError } from '../../http/errors.js';
import { toolIdentity } from '../../runtime/tool-identity.js';
import { unknownToolNames, type RequestApprovals } from './policy.js';
import { toolsFor } from './turn-tools.js';

/** What of a request decides its tool set. */
export interface ApprovalToolsRequest {
  agent_id: string;
  model?: string;
  tools?: ToolFamily[];
  brain?: boolean;
  skills?: string[];
  approvals?: RequestApprovals;
  /** What the request creates, for the message: a turn (the default) or a schedule (whose every turn gets the tools). */
  for?: 'turn' | 'schedule';
}

/**
 * Refuse `approvals` that name a tool the request's turn (or, for a schedule, each turn it starts)
 * would not get.
 * @throws HttpError 400 `unknown_approval_tool` when `approvals` names a tool the turn would not
 *   get; details `{unknown, available}`. The message names the request's own kind (`this turn`,
 *   `each turn this schedule starts`).
 */
export async function assertApprovalTools(s: { config: Config; registry: ServiceRegistry }, req: ApprovalToolsRequest): Promise<void> {
  if (!req.approvals || req.approvals === 'destructive') return;
  const tools = await toolsFor(
    { config: s.config, registry: s.registry, assemble: assembleTools },
    { turnId: 'approval-check', agentId: req.agent_id, kind: 'main', origin: { type: 'api' }, model: req.model ?? s.config.MODEL ?? '', tools: req.tools, brain: req.brain, skills: req.skills },
  );
  const unknown = unknownToolNames(req.approvals, tools);
  if (unknown.length === 0) return;
  const available = tools.map(toolIdentity).sort();
  throw new HttpError(400, 'unknown_approval_tool', `approvals names ${unknown.map((n) => `"${n}"`).join(', ')}, not among the tools ${req.for === 'schedule' ? 'each turn this schedule starts' : 'this turn'} would get; those are: ${available.join(', ') || '(none)'} (add the family to tools, or fix the name)`, {
    unknown,
    available,
  });
}
