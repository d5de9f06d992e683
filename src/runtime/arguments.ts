/**
 * Argument validation: raw `function_call.arguments` text → params for `execute`, or an `Error:`
 * text the model can act on (bad arguments → `Error:` output, README.md "SSE events").
 *
 * Steps: size bound and repair ladder (see repair.ts) → for strict tools, the model's `null` for
 * optional fields becomes "absent" → zod `safeParse` with the tool's schema; when that fails,
 * canonical string literals where the schema wants a number/integer/boolean are coerced and the
 * value is parsed again (repair `coerced_scalars`, see argument-shape.ts) → unless the tool sets
 * `allowUnknownKeys`, keys the schema does not name (also inside union branches) are an error
 * naming them, instead of being stripped silently.
 */
import { compileTool } from './compiled-tool.js';
import { coerceScalars, unknownKeys } from './argument-shape.js';
import { parseArguments, type RepairStep } from './repair.js';
import { stripOptionalNulls } from './strict-schema.js';
import type { AnyWorkerAgentTool } from './tool.js';
import { keepHead } from './text-cut.js';

/** Repair step name of a string→number/integer/boolean coercion. */
export const COERCED_SCALARS = 'coerced_scalars';

/**
 * What fixed the arguments, if anything: a repair-ladder step, {@link COERCED_SCALARS}, or both
 * joined with `+` (e.g. `code_fence+coerced_scalars`).
 */
export type ArgumentRepair = RepairStep | typeof COERCED_SCALARS | `${RepairStep}+${typeof COERCED_SCALARS}`;

/**
 * One reason arguments were refused: `path` inside the arguments (empty: the whole value), `code`
 * (zod's issue code, `unrecognized_keys` for a key the schema does not name, `invalid_json` for
 * text that is no JSON object), `message` written to follow the path (`must be a string, got 42`).
 */
export interface ArgumentProblem {
  path: PropertyKey[];
  code: string;
  message: string;
}

export type ValidateArgumentsResult =
  | { ok: true; params: unknown; repaired?: ArgumentRepair }
  | { ok: false; error: string; problems: ArgumentProblem[]; repaired?: ArgumentRepair };

/** Longest expected-parameters schema shown in an error, characters. */
const MAX_SCHEMA_IN_ERROR = 4000;

function expectedParameters(tool: AnyWorkerAgentTool): string {
  let text: string;
  try {
    text = JSON.stringify(compileTool(tool).parameters);
  } catch {
    text = '(schema unavailable)';
  }
  return text.length > MAX_SCHEMA_IN_ERROR ? `${keepHead(text, MAX_SCHEMA_IN_ERROR)}…` : text;
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

/**
 * Validate raw arguments for `tool`. Never throws.
 * @returns `{ok: true, params, repaired?}` or `{ok: false, error, problems}` where `error` starts
 *   with `Error:`, names the tool, lists each invalid path with its message and shows the expected
 *   parameters (JSON Schema) — the text the model reads; `problems` are the same reasons one by
 *   one (for HTTP callers, src/turns/approvals/edited-arguments.ts).
 */
export function validateToolArguments(tool: AnyWorkerAgentTool, rawArguments: string): ValidateArgumentsResult {
  const parsed = parseArguments(rawArguments);
  if (!parsed.ok) {
    return {
      ok: false,
      error: `Error: invalid arguments for tool ${tool.name}: ${parsed.reason}.\nExpected parameters: ${expectedParameters(tool)}`,
      problems: [{ path: [], code: 'invalid_json', message: parsed.reason }],
    };
  }
  let value = parsed.value;
  if (tool.strict && value !== null && typeof value === 'object') {
    value = stripOptionalNulls(value, compileTool(tool).inputSchema);
  }
  let result = tool.schema.safeParse(value);
  let repaired: ArgumentRepair | undefined = parsed.repaired;
  if (!result.success) {
    const coerced = coerceScalars(tool.schema, value);
    if (coerced.coerced.length > 0) {
      const again = tool.schema.safeParse(coerced.value);
      value = coerced.value;
      result = again;
      repaired = parsed.repaired ? `${parsed.repaired}+${COERCED_SCALARS}` : COERCED_SCALARS;
    }
  }
  const unknown = tool.allowUnknownKeys ? [] : unknownKeys(tool.schema, value);
  const unknownLines = unknown.map((path) => `- ${formatPath(path)}: unknown key (the schema has no such parameter here)`);
  const hint = unknown.length > 0
    ? '\nSend only the parameters the schema names; when the schema is a union (anyOf/oneOf), every key must belong to the one variant you mean.'
    : '';
  if (result.success && unknown.length === 0) return { ok: true, params: result.data, ...(repaired ? { repaired } : {}) };
  const issues: ArgumentProblem[] = result.success ? [] : result.error.issues.map((i: ArgumentProblem) => ({ path: i.path, code: i.code, message: i.message }));
  const issueLines = issues.map((issue) => `- ${formatPath(issue.path)}: ${issue.message}`);
  return {
    ok: false,
    problems: [...unknown.map((path) => ({ path, code: 'unrecognized_keys', message: 'is not a parameter of this tool' })), ...issues],
    ...(repaired ? { repaired } : {}),
    error: `Error: invalid arguments for tool ${tool.name}:\n${[...unknownLines, ...issueLines].join('\n')}${hint}\nExpected parameters: ${expectedParameters(tool)}`,
  };
}
