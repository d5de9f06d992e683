/**
 * Schema collection: the JSON Schema a tool's parameters are described with.
 *
 * Rules:
 * - zod → JSON Schema with zod 4's `z.toJSONSchema(schema, { io: 'input' })` (input side: fields
 *   with defaults are not required).
 * - The root must be `type: "object"`; otherwise `function tool parameters must use a root object
 *   schema` (naming the tool) is thrown.
 * - `$schema` is dropped, and so are the ±Number.MAX_SAFE_INTEGER bounds zod adds for `.int()`.
 * - A tool's `jsonSchema` is returned as the very same object (sent byte-for-byte unchanged).
 */
import { z } from 'zod';
import type { JsonObject, JsonValue } from './json.js';
import type { AnyWorkerAgentTool } from './tool-types.js';

/** Thrown when a tool's schema cannot be sent to the provider (bad root, strict-incompatible…). */
export class ToolSchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolSchemaError';
  }
}

const MAX = Number.MAX_SAFE_INTEGER;

function cleanZodOutput(node: JsonValue): JsonValue {
  if (Array.isArray(node)) return node.map(cleanZodOutput);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema') continue;
    if ((key === 'minimum' && value === -MAX) || (key === 'maximum' && value === MAX)) continue;
    out[key] = cleanZodOutput(value);
  }
  return out;
}

/** Converted schemas by zod schema object (families define theirs once per module; tools are made per turn). */
const converted = new WeakMap<z.ZodType, JsonObject>();

function deepFreeze<T>(node: T): T {
  if (node !== null && typeof node === 'object' && !Object.isFrozen(node)) {
    for (const v of Object.values(node)) deepFreeze(v);
    Object.freeze(node);
  }
  return node;
}

/**
 * The input-side JSON Schema of a zod schema, cleaned as described above. Converted once per
 * schema object and shared: the result is deeply frozen (a caller that needs to change it copies
 * it first), so a tool set assembled for every turn from module-level schemas does not run
 * `z.toJSONSchema` again each turn.
 * @throws ToolSchemaError when zod cannot represent the schema as JSON Schema (not cached: every
 *   call throws again).
 */
export function zodToJsonSchema(schema: z.ZodType, toolName: string): JsonObject {
  const hit = converted.get(schema);
  if (hit) return hit;
  let raw: unknown;
  try {
    raw = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' });
  } catch (err) {
    throw new ToolSchemaError(`tool ${toolName}: its zod schema cannot be expressed as JSON Schema: ${(err as Error).message}`);
  }
  const out = deepFreeze(cleanZodOutput(raw as JsonValue) as JsonObject);
  converted.set(schema, out);
  return out;
}

/**
 * The parameters schema the model would see for `tool` before strict normalization: its
 * `jsonSchema` as-is, or the cleaned zod input schema.
 * @throws ToolSchemaError `tool <name>: function tool parameters must use a root object schema`.
 */
export function toolInputJsonSchema(tool: AnyWorkerAgentTool): JsonObject {
  const schema = tool.jsonSchema ?? zodToJsonSchema(tool.schema, tool.name);
  if (schema.type !== 'object') {
    throw new ToolSchemaError(`tool ${tool.name}: function tool parameters must use a root object schema`);
  }
  return schema;
}
