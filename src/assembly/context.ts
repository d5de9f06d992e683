/**
 * TurnContext: what every family creator and every tool's `execute` (as `ctx.turn`) gets for one
 * turn. Built by the turn service per request; nothing here is global.
 */
import type { Config, ToolFamily } from '../config.js';
import type { JsonObject } from '../runtime/json.js';
import type { ServiceRegistry } from './services.js';

import type { TurnKind, TurnOrigin } from '../turns/turn-kinds.js';
import type { RequestApprovals } from '../turns/approvals/policy.js';

export type { TurnKind, TurnOrigin };

/** The task a workflow task turn works on (kind === 'workflow_task' only). */
export interface WorkflowTaskBinding {
  workflowId: string;
  taskIndex: number;
  /** The task's persisted result schema (raw JSON Schema, the allowed subset). */
  resultSchema: JsonObject;
  /**
   * Re-validate and persist a submitted result. Returns `{ok: true}` when accepted, or the list of
   * violations (each "path: message") when rejected.
   */
  submit(value: unknown): Promise<{ ok: true } | { ok: false; errors: string[] }>;
}

export interface TurnContext {
  turnId: string;
  /** `[A-Za-z0-9_-]{1,64}`; owns the computer home, schedules, workflows, brain pages. */
  agentId: string;
  kind: TurnKind;
  origin: TurnOrigin;
  /** Families the request asked for (or the configured defaults), in request order. */
  families: ToolFamily[];
  /** The request's `brain: true` (enables recall/get_page where the kind allows). */
  brain: boolean;
  /** The request's `skills` (names); undefined → the agent's enabled skills (src/skills/turn-skills.ts). */
  skills?: string[];
  config: Config;
  /** Absolute path of the agent's home: DATA_DIR/agents/<agent_id>/home (created on first use by the computer family). */
  agentHome: string;
  /** Aborted when the turn is cancelled. */
  signal: AbortSignal;
  services: ServiceRegistry;
  /** Model name of this turn. */
  model: string;
  /** Set for kind === 'workflow_task'. */
  workflowTask?: WorkflowTaskBinding;
  /**
   * Tool families of the turn as requested — a schedule created in this turn inherits them.
   * (Same as `families`; kept explicit for readability in schedule tools.)
   */
  requestedTools: ToolFamily[];
  /** The request's `approvals` (README "Tool approvals"); a schedule created in this turn inherits them. */
  approvals?: RequestApprovals;
}
