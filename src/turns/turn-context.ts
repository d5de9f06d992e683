/** Builds the {@link TurnContext} of one turn (or of a tools preview) from its request and config. */
import path from 'node:path';
import type { TurnContext, TurnKind, TurnOrigin, WorkflowTaskBinding } from '../assembly/context.js';
import type { ServiceRegistry } from '../assembly/services.js';
import type { Config, ToolFamily } from '../config.js';
import type { RequestApprovals } from './approvals/policy.js';

export interface TurnContextInput {
  turnId: string;
  agentId: string;
  kind: TurnKind;
  origin: TurnOrigin;
  model: string;
  /** Requested families; undefined → DEFAULT_TOOLS. */
  tools?: ToolFamily[];
  brain?: boolean;
  /** Requested skills; undefined → the agent's enabled list. */
  skills?: string[];
  signal: AbortSignal;
  workflowTask?: WorkflowTaskBinding;
  /** The request's `approvals`. */
  approvals?: RequestApprovals;
}

/** `DATA_DIR/agents/<agent_id>/home` (absolute; agent ids are `[A-Za-z0-9_-]{1,64}`). */
export function agentHome(config: Config, agentId: string): string {
  return path.join(config.DATA_DIR, 'agents', agentId, 'home');
}

export function buildTurnContext(config: Config, registry: ServiceRegistry, t: TurnContextInput): TurnContext {
  const families = t.tools ?? config.DEFAULT_TOOLS;
  return {
    turnId: t.turnId,
    agentId: t.agentId,
    kind: t.kind,
    origin: t.origin,
    families,
    brain: t.brain ?? false,
    skills: t.skills,
    config,
    agentHome: agentHome(config, t.agentId),
    signal: t.signal,
    services: registry,
    model: t.model,
    workflowTask: t.workflowTask,
    requestedTools: families,
    ...(t.approvals ? { approvals: t.approvals } : {}),
  };
}
