/**
 * The result-schema subset a workflow task may declare, checked when the workflow is created.
 *
 * The task's `result_schema` becomes the `result` parameter of its `submit_result` tool, sent with
 * `strict: true`, so it must be a schema OpenAI Structured Outputs strict mode accepts ("Supported
 * schemas": every object lists all its properties in `required` and sets `additionalProperties:
 * false`; no open objects or records). This service narrows that further to a small, predictable subset:
 *
 * - every node has exactly one `type`: object, array, string, number, integer or boolean;
 * - objects: `properties` (≤ {@link MAX_PROPERTIES} each), `required` listing every property,
 *   `additionalProperties: false`;
 * - arrays: `items` (one schema), `minItems`/`maxItems`;
 * - strings: `minLength`/`maxLength`/`pattern` (ECMAScript regex, `u` flag, that must also compile
 *   with RE2 — no lookaround or backreferences — and be ≤ 1000 characters; see ./result-pattern.ts), `enum`;
 * - numbers/integers: `minimum`/`maximum`/`multipleOf`, `enum`; booleans: `enum`;
 * - `description` anywhere; nothing else (no `anyOf`, `$ref`, `format`, `const`, `title`…);
 * - nesting depth ≤ {@link MAX_DEPTH} (the root is depth 1).
 */
import type { JsonValue } from '../runtime/json.js';
import { checkResultPattern } from './result-pattern.js';

export const MAX_DEPTH = 16;
export const MAX_PROPERTIES = 128;
/** Serialized size limit of one result schema, bytes of JSON. */
export const MAX_SCHEMA_BYTES = 64 * 1024;

export const RESULT_TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean'] as const;
export type ResultType = (typeof RESULT_TYPES)[number];

/** Keywords allowed per `type` (besides `type` itself). */
export const ALLOWED_KEYWORDS: Record<ResultType, readonly string[]> = {
  object: ['description', 'properties', 'required', 'additionalProperties'],
  array: ['description', 'items', 'minItems', 'maxItems'],
  string: ['description', 'enum', 'minLength', 'maxLength', 'pattern'],
  number: ['description', 'enum', 'minimum', 'maximum', 'multipleOf'],
  integer: ['description', 'enum', 'minimum', 'maximum', 'multipleOf'],
  boolean: ['description', 'enum'],
};

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON Pointer escaping (RFC 6901): `~` → `~0`, `/` → `~1`. */
const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** True when `value` is an instance of the JSON type `type` (integers exactly). */
export function matchesType(type: ResultType, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isPlainObject(value);
  }
}

/** One violation of the subset: where (JSON Pointer from the schema root, `#` = the root) and what. */
export interface SchemaIssue {
  pointer: string;
  message: string;
}

/**
 * Check `schema` against the subset. Returns one "pointer: message" line per violation (JSON
 * Pointer from the schema root, `#` = the root), in document order; empty when the schema is allowed.
 * Never throws, whatever `schema` is.
 */
export function checkResultSchema(schema: unknown): string[] {
  return resultSchemaIssues(schema).map((e) => `${e.pointer}: ${e.message}`);
}

/** {@link checkResultSchema}'s violations as `{pointer, message}` (a key may hold `: `). Never throws. */
export function resultSchemaIssues(schema: unknown): SchemaIssue[] {
  const errors: SchemaIssue[] = [];
  let size = 0;
  try {
    size = Buffer.byteLength(JSON.stringify(schema) ?? '', 'utf8');
  } catch {
    return [{ pointer: '#', message: 'result_schema must be JSON' }];
  }
  if (size > MAX_SCHEMA_BYTES) return [{ pointer: '#', message: `result_schema is ${size} bytes of JSON; the limit is ${MAX_SCHEMA_BYTES}` }];
  checkNode(schema, '#', 1, errors);
  return errors;
}

function checkNode(node: unknown, at: string, depth: number, errors: SchemaIssue[]): void {
  if (depth > MAX_DEPTH) {
    errors.push({ pointer: at, message: `nesting deeper than ${MAX_DEPTH} levels` });
    return;
  }
  if (!isPlainObject(node)) {
    errors.push({ pointer: at, message: `must be a schema object like {"type": "string"}` });
    return;
  }
  const type = node.type;
  if (Array.isArray(type)) {
    errors.push({ pointer: `${at}/type`, message: `must be a single type name, not a list (no unions or nullable types)` });
    return;
  }
  if (typeof type !== 'string' || !(RESULT_TYPES as readonly string[]).includes(type)) {
    errors.push({ pointer: `${at}/type`, message: `${type === undefined ? 'missing' : JSON.stringify(type) + ' is not allowed'}; use one of ${RESULT_TYPES.join(', ')}` },
    );
    const combinators = ['anyOf', 'oneOf', 'allOf', 'not', '$ref'].filter((k) => k in node);
    for (const k of combinators) errors.push({ pointer: `${at}/${k}`, message: `"${k}" is not allowed (one plain type per node)` });
    return;
  }
  const t = type as ResultType;
  const allowed = ALLOWED_KEYWORDS[t];
  for (const key of Object.keys(node)) {
    if (key === 'type' || allowed.includes(key)) continue;
    errors.push({ pointer: `${at}/${escapePointer(key)}`, message: `"${key}" is not allowed for type ${t} (allowed: ${allowed.join(', ')})` });
  }
  if ('description' in node && typeof node.description !== 'string') errors.push({ pointer: `${at}/description`, message: `must be a string` });
  if ('enum' in node && allowed.includes('enum')) checkEnum(t, node.enum, `${at}/enum`, errors);

  switch (t) {
    case 'object':
      checkObject(node, at, depth, errors);
      break;
    case 'array':
      checkCount(node, 'minItems', at, errors);
      checkCount(node, 'maxItems', at, errors);
      checkMinMax(node, 'minItems', 'maxItems', at, errors);
      if (!('items' in node)) errors.push({ pointer: at, message: `an array needs "items" (one schema for every element)` });
      else checkNode(node.items, `${at}/items`, depth + 1, errors);
      break;
    case 'string':
      checkCount(node, 'minLength', at, errors);
      checkCount(node, 'maxLength', at, errors);
      checkMinMax(node, 'minLength', 'maxLength', at, errors);
      if ('pattern' in node) {
        if (typeof node.pattern !== 'string') errors.push({ pointer: `${at}/pattern`, message: `must be a string` });
        else {
          const problem = checkResultPattern(node.pattern);
          if (problem) errors.push({ pointer: `${at}/pattern`, message: `${problem}` });
        }
      }
      break;
    case 'number':
    case 'integer':
      for (const k of ['minimum', 'maximum'] as const) {
        if (k in node && !(typeof node[k] === 'number' && Number.isFinite(node[k]))) errors.push({ pointer: `${at}/${k}`, message: `must be a number` });
      }
      checkMinMax(node, 'minimum', 'maximum', at, errors);
      if ('multipleOf' in node && !(typeof node.multipleOf === 'number' && node.multipleOf > 0 && Number.isFinite(node.multipleOf))) {
        errors.push({ pointer: `${at}/multipleOf`, message: `must be a number greater than 0` });
      }
      break;
    case 'boolean':
      break;
  }
}

function checkObject(node: Record<string, unknown>, at: string, depth: number, errors: SchemaIssue[]): void {
  const props = node.properties;
  if (!isPlainObject(props)) {
    errors.push({ pointer: `${at}/properties`, message: `an object needs "properties" (an object of property schemas)` });
  }
  const names = isPlainObject(props) ? Object.keys(props) : [];
  if (names.length > MAX_PROPERTIES) {
    errors.push({ pointer: `${at}/properties`, message: `${names.length} properties; at most ${MAX_PROPERTIES} per object` });
  }
  if (node.additionalProperties !== false) {
    errors.push({ pointer: `${at}/additionalProperties`, message: `must be false${
        node.additionalProperties === undefined ? ' (missing)' : ''
      } — open objects and records (maps with free keys) are not allowed; list every property` },
    );
  }
  const required = node.required;
  if (!Array.isArray(required) || required.some((r) => typeof r !== 'string')) {
    errors.push({ pointer: `${at}/required`, message: `must be a list naming every property (${JSON.stringify(names)})` });
  } else {
    const missing = names.filter((n) => !required.includes(n));
    const unknown = (required as string[]).filter((r) => !names.includes(r));
    if (missing.length > 0) {
      errors.push({ pointer: `${at}/required`, message: `must list every property; missing ${missing.map((m) => JSON.stringify(m)).join(', ')}` });
    }
    if (unknown.length > 0) {
      errors.push({ pointer: `${at}/required`, message: `names ${unknown.map((m) => JSON.stringify(m)).join(', ')} not in properties` });
    }
    if (new Set(required).size !== required.length) errors.push({ pointer: `${at}/required`, message: `has duplicates` });
  }
  if (isPlainObject(props)) {
    for (const name of names) checkNode(props[name], `${at}/properties/${escapePointer(name)}`, depth + 1, errors);
  }
}

function checkEnum(type: ResultType, values: unknown, at: string, errors: SchemaIssue[]): void {
  if (!Array.isArray(values) || values.length === 0) {
    errors.push({ pointer: at, message: `must be a non-empty list of values` });
    return;
  }
  const bad = values.filter((v) => !matchesType(type, v));
  if (bad.length > 0) errors.push({ pointer: at, message: `values ${bad.map((v) => JSON.stringify(v)).join(', ')} are not of type ${type}` });
  if (new Set(values.map((v) => JSON.stringify(v))).size !== values.length) errors.push({ pointer: at, message: `has duplicates` });
}

function checkCount(node: Record<string, unknown>, key: string, at: string, errors: SchemaIssue[]): void {
  if (!(key in node)) return;
  const v = node[key];
  if (!(typeof v === 'number' && Number.isInteger(v) && v >= 0)) errors.push({ pointer: `${at}/${key}`, message: `must be an integer ≥ 0` });
}

function checkMinMax(node: Record<string, unknown>, min: string, max: string, at: string, errors: SchemaIssue[]): void {
  const lo = node[min];
  const hi = node[max];
  if (typeof lo === 'number' && typeof hi === 'number' && lo > hi) errors.push({ pointer: at, message: `${min} (${lo}) is greater than ${max} (${hi})` });
}

/** The wrapper sent as `submit_result`'s parameters: `{result: <schema>}`, strict-mode shaped. */
export function submitResultParameters(resultSchema: JsonValue): { [key: string]: JsonValue } {
  return {
    type: 'object',
    properties: { result: resultSchema },
    required: ['result'],
    additionalProperties: false,
  };
}
