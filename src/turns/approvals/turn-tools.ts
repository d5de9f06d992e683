/**
 * The tool set of a stored turn, rebuilt from its request as its runner builds it
 * (src/turns/turn-run.ts) — to check edited arguments against the real tool's schema, and the
 * tool names of a request's `approvals` against the tools the turn would get. Nothing runs; the
 * context's signal is aborted afterwards.
 */
import type { assembleTools } from '../../assembly/assemble.js';
import type { ServiceRegistry } from '../../assembly/services.js';
import type { Config } from '../../config.js';
import type { AnyWorkerAgentTool } from '../../runtime/tool.js';
import { toolIdentity } from '../../runtime/tool-identity.js';
import type { TurnStore } from '../../store/turn-store.js';
import { buildTurnContext, type TurnContextInput } from '../turn-context.js';

export interface TurnToolsDeps {
  config: Config;
  registry: ServiceRegistry;
  assemble: typeof assembleTools;
}

/** The tools a turn with this context input gets (workflow task bindings excluded). */
export async function toolsFor(d: TurnToolsDeps, input: Omit<TurnContextInput, 'signal'>): Promise<AnyWorkerAgentTool[]> {
  const controller = new AbortController();
  try {
    return (await d.assemble(buildTurnContext(d.config, d.registry, { ...input, signal: controller.signal }))).tools;
  } finally {
    controller.abort(new Error('tool lookup finished'));
  }
}

/** Tool `name` (identity) of stored turn `turnId`; undefined when the turn or the tool is gone. */
export async function toolOfTurn(d: TurnToolsDeps & { store: TurnStore }, turnId: string, name: string): Promise<AnyWorkerAgentTool | undefined> {
  const [rec, request] = await Promise.all([d.store.get(turnId), d.store.getRequest(turnId)]);
  if (!rec || !request || rec.kind === 'workflow_task') return undefined;
  const tools = await toolsFor(d, {
    turnId, agentId: rec.agent_id, kind: rec.kind, origin: rec.origin, model: rec.model, tools: request.tools, brain: request.brain, skills: request.skills,
  });
  return tools.find((t) => toolIdentity(t) === name);
}
