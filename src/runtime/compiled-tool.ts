/**
 * Per-tool derived data computed once and cached (WeakMap keyed by the tool object): the input
 * JSON Schema (for null-stripping and error messages) and the `parameters` sent to the provider.
 *
 * `parameters` is: the tool's `jsonSchema` unchanged (same object, so it serializes byte-for-byte
 * as given) when set; else the strict normalization of the zod input schema when `strict: true`;
 * else the zod input schema.
 */
import type { JsonObject } from './json.js';
import { toolInputJsonSchema } from './schema.js';
import { toStrictJsonSchema } from './strict-schema.js';
import type { AnyWorkerAgentTool } from './tool-types.js';
import { toolIdentity } from './tool-identity.js';

export interface CompiledTool {
  tool: AnyWorkerAgentTool;
  /** `namespace.name` or `name`. */
  identity: string;
  /** Input-side JSON Schema (what validation errors show and null-stripping walks). */
  inputSchema: JsonObject;
  /** What the provider gets as `parameters`. */
  parameters: JsonObject;
  /** Map the model's null for optional fields to absent before zod (strict zod tools only). */
  stripNulls: boolean;
}

const cache = new WeakMap<AnyWorkerAgentTool, CompiledTool>();

/**
 * Compile (or fetch from cache) the derived schemas of a tool.
 * @throws ToolSchemaError for a non-object root or a strict schema strict mode cannot express.
 */
export function compileTool(tool: AnyWorkerAgentTool): CompiledTool {
  const hit = cache.get(tool);
  if (hit) return hit;
  const inputSchema = toolInputJsonSchema(tool);
  const zodStrict = tool.strict === true && tool.jsonSchema === undefined;
  const parameters = tool.jsonSchema ?? (zodStrict ? toStrictJsonSchema(inputSchema, tool.name) : inputSchema);
  const compiled: CompiledTool = { tool, identity: toolIdentity(tool), inputSchema, parameters, stripNulls: tool.strict === true };
  cache.set(tool, compiled);
  return compiled;
}
