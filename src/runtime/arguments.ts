/**
 * Argument validation: raw `function_call.arguments` text → params for `execute`, or an `Error:`
 * text the model can act on (bad arguments → `Error:` output, README.md "SSE events").
 *
 * Steps: size bound and repair ladder (see repair.ts) → for strict tools, the model's `null` for
 * optional fields becomes "absent" → zod `safeParse` with the tool's schema.
 */
import { compileTool } from './compiled-tool.js';
import { parseArguments, type RepairStep } from './repair.js';
import { stripOptionalNulls } from './strict-schema.js';
import type { AnyWorkerAgentTool } from './tool.js';

export type ValidateArgumentsResult =
  | { ok: true; params: unknown; repaired?: RepairStep }
  | { ok: false; error: string; repaired?: RepairStep };

/** Longest expected-parameters schema shown in an error, characters. */
const MAX_SCHEMA_IN_ERROR = 4000;

function expectedParameters(tool: AnyWorkerAgentTool): string {
  let text: string;
  try {
    text = JSON.stringify(compileTool(tool).parameters);
  } catch {
    text = '(schema unavailable)';
  }
  return text.length > MAX_SCHEMA_IN_ERROR ? `${text.slice(0, MAX_SCHEMA_IN_ERROR)}…` : text;
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

/**
 * Validate raw arguments for `tool`. Never throws.
 * @returns `{ok: true, params, repaired?}` or `{ok: false, error}` where `error` starts with
 *   `Error:`, names the tool, lists each invalid path with its message and shows the expected
 *   parameters (JSON Schema).
 */
export function validateToolArguments(tool: AnyWorkerAgentTool, rawArguments: string): ValidateArgumentsResult {
  const parsed = parseArguments(rawArguments);
  if (!parsed.ok) {
    return {
      ok: false,
      error: `Error: invalid arguments for tool ${tool.name}: ${parsed.reason}.\nExpected parameters: ${expectedParameters(tool)}`,
    };
  }
  let value = parsed.value;
  if (tool.strict && value !== null && typeof value === 'object') {
    value = stripOptionalNulls(value, compileTool(tool).inputSchema);
  }
  const result = tool.schema.safeParse(value);
  if (result.success) return { ok: true, params: result.data, repaired: parsed.repaired };
  const lines = result.error.issues.map((issue: { path: PropertyKey[]; message: string }) => `- ${formatPath(issue.path)}: ${issue.message}`);
  return {
    ok: false,
    repaired: parsed.repaired,
    error: `Error: invalid arguments for tool ${tool.name}:\n${lines.join('\n')}\nExpected parameters: ${expectedParameters(tool)}`,
  };
}
