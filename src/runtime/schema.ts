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

/**
 * The input-side JSON Schema of a zod schema, cleaned as described above.
 * @throws ToolSchemaError when zod cannot represent the schema as JSON Schema.
 */
export function zodToJsonSchema(schema: z.ZodType, toolName: string): JsonObject {
  let raw: unknown;
  try {
    raw = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' });
  } catch (err) {
    throw new ToolSchemaError(`tool ${toolName}: its zod schema cannot be expressed as JSON Schema: ${(err as Error).message}`);
  }
  return cleanZodOutput(raw as JsonValue) as JsonObject;
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
