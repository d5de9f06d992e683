/**
 * The tool contract: every tool a turn can call is a {@link WorkerAgentTool} built with
 * {@link defineWorkerTool}. Family creators (src/tools/<family>/) return arrays of them; the
 * assembler (src/assembly/) concatenates those arrays per request; the loop (src/runtime/loop.ts)
 * sends their JSON Schemas to the model and dispatches function calls back to `execute`.
 *
 * Contract rules (enforced here, at definition time):
 * - `executionMode: 'parallel'` requires `isReadOnly: true` and `isDestructive !== true`.
 * - `name` must match the Responses API function-name rule `^[a-zA-Z0-9_-]{1,64}$`.
 * - the parameters schema must have a root `type: "object"`, and a `strict: true` zod schema must be
 *   expressible in strict mode (see src/runtime/strict-schema.ts) — else ToolSchemaError.
 * - `execute` receives params already validated by `schema` (never raw model output) and reports
 *   failure by throwing; the dispatcher turns a throw into an `Error: …` function_call_output.
 */
import type { z } from 'zod';
import { compileTool } from './compiled-tool.js';
import type { AgentToolResult, WorkerAgentTool, WorkerToolSpec } from './tool-types.js';

export type * from './tool-types.js';

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Define a tool. Throws (at definition time, not at call time) when the spec breaks the contract:
 * bad name, a `parallel` tool that is not read-only or is destructive, a non-object root schema,
 * or a strict schema strict mode cannot express.
 */
export function defineWorkerTool<S extends z.ZodType, TResult extends AgentToolResult = AgentToolResult, TTurn = unknown>(
  spec: WorkerToolSpec<S, TResult, TTurn>,
): WorkerAgentTool<S, TResult, TTurn> {
  if (!TOOL_NAME.test(spec.name)) {
    throw new Error(`tool name ${JSON.stringify(spec.name)} must match ${TOOL_NAME}`);
  }
  if (spec.namespace !== undefined && !TOOL_NAME.test(spec.namespace)) {
    throw new Error(`tool ${spec.name}: namespace ${JSON.stringify(spec.namespace)} must match ${TOOL_NAME}`);
  }
  const isReadOnly = spec.isReadOnly ?? false;
  const isDestructive = spec.isDestructive ?? false;
  if (spec.executionMode === 'parallel' && (!isReadOnly || isDestructive)) {
    throw new Error(
      `tool ${spec.name}: executionMode 'parallel' requires isReadOnly: true and isDestructive not true`,
    );
  }
  const tool: WorkerAgentTool<S, TResult, TTurn> = {
    ...spec,
    strict: spec.strict ?? false,
    deferLoading: spec.deferLoading ?? false,
    isReadOnly,
    isDestructive,
  };
  // Schema checks at definition time (root object; strict-mode expressibility): throws ToolSchemaError.
  compileTool(tool);
  return tool;
}

/** The identity two tools in one turn must not share: `namespace.name` or `name` (see tool-identity.ts). */
export { toolIdentity } from './tool-identity.js';

/** Convenience: a result with one text part. */
export function textResult<TDetails = unknown>(text: string, details?: TDetails, extra?: Omit<AgentToolResult<TDetails>, 'content' | 'details'>): AgentToolResult<TDetails> {
  return { content: [{ type: 'text', text }], details, ...extra };
}
