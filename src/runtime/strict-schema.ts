/**
 * Strict-mode normalization of a tool's parameters schema, and the inverse mapping of the model's
 * `null` for optional fields back to "absent".
 *
 * Rules from OpenAI Structured Outputs, "Supported schemas"
 * (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas):
 * - every object lists all of its properties in `required`; an optional field is expressed by
 *   allowing `null` (type union with "null", or `anyOf` with `{type:"null"}`);
 * - `additionalProperties: false` on every object (so open objects and records cannot be expressed);
 * - no `default`; `$defs` only at the root; `allOf`, `not`, `if/then/else`, `patternProperties`,
 *   `dependentRequired`, `dependentSchemas`, `propertyNames` are not supported; `oneOf` is sent as
 *   `anyOf` (zod still validates the exact union).
 * A schema these rules cannot express throws {@link ToolSchemaError} saying where and why.
 */
import type { JsonObject, JsonValue } from './json.js';
import { ToolSchemaError } from './schema.js';

const UNSUPPORTED = ['allOf', 'not', 'if', 'then', 'else', 'patternProperties', 'dependentRequired', 'dependentSchemas', 'propertyNames', 'unevaluatedProperties'];

function isObj(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function allowsNull(s: JsonObject): boolean {
  if (s.type === 'null') return true;
  if (Array.isArray(s.type) && s.type.includes('null')) return true;
  if (Array.isArray(s.anyOf) && s.anyOf.some((m) => isObj(m) && allowsNull(m))) return true;
  return false;
}

const PRIMITIVE = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * Make a (normalized) schema also accept `null`: primitives get a type union (`["string","null"]`,
 * with null added to an `enum`), unions get a `{type:"null"}` member, objects, arrays, `$ref`s and
 * `const`s are wrapped as `anyOf: [schema, {type:"null"}]`.
 */
function nullable(s: JsonObject): JsonObject {
  if (allowsNull(s)) return s;
  if (typeof s.type === 'string' && PRIMITIVE.has(s.type) && s.const === undefined) {
    const out: JsonObject = { ...s, type: [s.type, 'null'] };
    if (Array.isArray(s.enum) && !s.enum.includes(null)) out.enum = [...s.enum, null];
    return out;
  }
  if (Array.isArray(s.type) && s.type.every((t) => typeof t === 'string' && PRIMITIVE.has(t)) && s.const === undefined) {
    const out: JsonObject = { ...s, type: [...s.type, 'null'] };
    if (Array.isArray(s.enum) && !s.enum.includes(null)) out.enum = [...s.enum, null];
    return out;
  }
  if (Array.isArray(s.anyOf)) return { ...s, anyOf: [...s.anyOf, { type: 'null' }] };
  return { anyOf: [s, { type: 'null' }] };
}

function normalize(node: JsonObject, where: string, isRoot: boolean, tool: string): JsonObject {
  const fail = (why: string): never => {
    throw new ToolSchemaError(`tool ${tool}: strict mode cannot express the schema at ${where}: ${why}`);
  };
  for (const key of UNSUPPORTED) {
    if (key in node) {
      fail(key === 'propertyNames' ? 'records (open key sets) are not supported; use an object with fixed properties' : `"${key}" is not supported`);
    }
  }
  if ('$defs' in node && !isRoot) fail('$defs are only allowed at the root');
  const isObject = node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object')) || isObj(node.properties);
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'default') continue;
    if (key === 'oneOf' || key === 'anyOf') {
      if (!Array.isArray(value)) fail(`${key} must be an array`);
      out.anyOf = (value as JsonValue[]).map((m, i) => normalize(m as JsonObject, `${where}.${key}[${i}]`, false, tool));
    } else if (key === 'items' && isObj(value)) {
      out.items = normalize(value, `${where}[]`, false, tool);
    } else if (key === 'prefixItems' && Array.isArray(value)) {
      out.prefixItems = value.map((m, i) => normalize(m as JsonObject, `${where}[${i}]`, false, tool));
    } else if (key === '$defs' && isObj(value)) {
      const defs: JsonObject = {};
      for (const [name, def] of Object.entries(value)) defs[name] = normalize(def as JsonObject, `$defs.${name}`, false, tool);
      out.$defs = defs;
    } else if (key === 'properties' || key === 'required' || key === 'additionalProperties') {
      // handled below
    } else {
      out[key] = value;
    }
  }
  if (isObject) {
    const additional = node.additionalProperties;
    if (additional !== undefined && additional !== false) {
      fail('open objects (additionalProperties other than false) are not supported; list the properties');
    }
    const props = isObj(node.properties) ? node.properties : {};
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    const outProps: JsonObject = {};
    for (const [name, prop] of Object.entries(props)) {
      const child = normalize(prop as JsonObject, where === '$' ? name : `${where}.${name}`, false, tool);
      outProps[name] = required.has(name) ? child : nullable(child);
    }
    out.properties = outProps;
    out.required = Object.keys(outProps);
    out.additionalProperties = false;
  }
  return out;
}

/**
 * Normalize an input JSON Schema (as from {@link toolInputJsonSchema}) to the strict subset.
 * Returns a new object; the argument is not modified.
 * @throws ToolSchemaError naming the tool, the path and the reason.
 */
export function toStrictJsonSchema(schema: JsonObject, toolName: string): JsonObject {
  return normalize(schema, '$', true, toolName);
}

function resolve(schema: JsonObject, root: JsonObject): JsonObject {
  let s = schema;
  for (let i = 0; i < 16 && typeof s.$ref === 'string'; i++) {
    const m = /^#\/\$defs\/(.+)$/.exec(s.$ref);
    const defs = root.$defs;
    if (!m || !isObj(defs) || !isObj(defs[m[1]])) return s;
    s = defs[m[1]] as JsonObject;
  }
  return s;
}

/**
 * Map the model's `null` for optional fields back to "absent", guided by the tool's *input*
 * (non-strict) schema: a property that is not required there and whose schema does not accept
 * null is deleted when its value is null. Recurses into nested objects, arrays and `$ref`s.
 * Mutates and returns `value` (a freshly parsed JSON value).
 */
export function stripOptionalNulls(value: unknown, schema: JsonObject, root: JsonObject = schema): unknown {
  const s = resolve(schema, root);
  if (Array.isArray(value)) {
    if (isObj(s.items)) for (const v of value) stripOptionalNulls(v, s.items, root);
    return value;
  }
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  if (isObj(s.properties)) {
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    for (const [name, prop] of Object.entries(s.properties)) {
      if (!(name in obj) || !isObj(prop)) continue;
      const propSchema = resolve(prop, root);
      if (obj[name] === null && !required.has(name) && !allowsNull(propSchema)) delete obj[name];
      else stripOptionalNulls(obj[name], propSchema, root);
    }
  } else if (Array.isArray(s.anyOf ?? s.oneOf)) {
    const members = (s.anyOf ?? s.oneOf) as JsonValue[];
    const objMember = members.find((m) => isObj(m) && isObj(resolve(m, root).properties));
    if (objMember) stripOptionalNulls(value, objMember as JsonObject, root);
  }
  return value;
}
