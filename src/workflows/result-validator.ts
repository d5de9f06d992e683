/**
 * Re-validation of a submitted workflow task result against the task's persisted `result_schema`
 * with Ajv (JSON Schema draft-07 semantics). The provider's strict check is only the first gate;
 * this is the one that decides what is written.
 *
 * Types are exact: no coercion (`"1"` is not an integer), `integer` rejects 1.5, and extra or
 * missing properties are violations (the subset requires `additionalProperties: false` and every
 * property in `required`, see ./result-schema.ts).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { re2RegExpEngine } from './result-pattern.js';

/**
 * `pattern` runs on RE2 (linear time, see ./result-pattern.ts), never on V8's backtracking RegExp.
 * `multipleOfPrecision: 9`: `multipleOf` passes when value/multipleOf is within 1e-9 of an integer,
 * so decimal steps work (0.3 / 0.1 = 2.9999999999999996 in binary floating point).
 */
const ajv = new Ajv({
  allErrors: true,
  strict: true,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  multipleOfPrecision: 9,
  code: { regExp: re2RegExpEngine },
});

/** Compiled validators by schema JSON; bounded so a long-running service does not grow without end. */
const cache = new Map<string, ValidateFunction>();
const CACHE_LIMIT = 256;

function compile(schema: object): ValidateFunction {
  const key = JSON.stringify(schema);
  let fn = cache.get(key);
  if (fn) {
    cache.delete(key);
    cache.set(key, fn); // most recently used last
    return fn;
  }
  fn = ajv.compile(schema);
  cache.set(key, fn);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return fn;
}

/**
 * Validate `value` against `schema` (a schema that passed `checkResultSchema`).
 * @returns `[]` when valid, else one line per violation: `result.path: message`, e.g.
 *   `result.count: must be integer (got "1")`, `result: must NOT have additional property "extra"`.
 *   A schema that cannot be compiled (stored before a creation rule existed) gives one violation line.
 */
export function validateResult(schema: object, value: unknown): string[] {
  let validate: ValidateFunction;
  try {
    validate = compile(schema);
  } catch (err) {
    // Only a schema stored before a creation rule was added can get here (e.g. a lookahead pattern).
    return [`result: the task's result_schema cannot be checked (${(err as Error).message}); this task cannot accept a result`];
  }
  if (value === undefined) return ['result: missing (call submit_result with {"result": <value>})'];
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => formatError(e, value));
}

function formatError(error: ErrorObject, root: unknown): string {
  const { path, value } = locate(error.instancePath, root);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `${path}: must NOT have additional property ${JSON.stringify(params.additionalProperty)}`;
    case 'required':
      return `${path}: missing required property ${JSON.stringify(params.missingProperty)}`;
    case 'type':
      return `${path}: must be ${String(params.type)} (got ${describe(value)})`;
    case 'enum':
      return `${path}: must be one of ${JSON.stringify(params.allowedValues)} (got ${describe(value)})`;
    default:
      return `${path}: ${error.message ?? error.keyword}`;
  }
}

/** Turn a JSON Pointer into `result.a[2].b` and find the value it points at. */
function locate(pointer: string, root: unknown): { path: string; value: unknown } {
  let path = 'result';
  let value: unknown = root;
  if (pointer === '') return { path, value };
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(value)) {
      path += `[${key}]`;
      value = value[Number(key)];
    } else {
      path += /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
      value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    }
  }
  return { path, value };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}
