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
}

/**
 * @throws HttpError 400 `unknown_approval_tool` when `approvals` names a tool the turn would not
 *   get; details `{unknown, available}`.
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
  throw new HttpError(400, 'unknown_approval_tool', `approvals names ${unknown.map((n) => `"${n}"`).join(', ')}, not among the tools the turn of this request would get (a schedule: each turn it starts); those are: ${available.join(', ') || '(none)'} (add the family to tools, or fix the name)`, {
    unknown,
    available,
  });
}
