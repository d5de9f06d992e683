/**
 * Two checks of parsed tool arguments against the tool's zod 4 schema, walked together with the
 * value (pure, never throw):
 *
 * - {@link coerceScalars}: a string where the schema wants exactly a number, an integer or a
 *   boolean becomes that value when the string is a canonical literal of it — JSON number syntax
 *   (`-12`, `0.5`, `3e2`; no `+`, no leading zeros, no spaces, no locale separators, no empty
 *   string) that is finite (`"1e999"` is refused), an integer literal for integer targets, and
 *   exactly `"true"` / `"false"` for booleans. Optional/nullable/default wrappers count as the
 *   type they wrap; a union is entered only through the first branch the coerced value then fits.
 * - {@link unknownKeys}: keys of the value that the schema does not name. A plain `z.object`
 *   silently strips them, so a call with a key from another union branch would run on a branch
 *   the model did not mean. Objects with a catchall (`z.looseObject`, `.catchall()`) accept extra
 *   keys; `z.strictObject` already rejects them itself. For a union (discriminated or not) the
 *   branch zod picks — the first that accepts the value — is the one checked.
 *
 * Paths are lists of keys / indices from the arguments root.
 */
import type { z } from 'zod';

type Path = (string | number)[];

// zod 4 keeps a schema's definition in `_zod.def`; only the fields read here are typed.
interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  getter?: () => z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  items?: z.ZodType[];
  rest?: z.ZodType | null;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  coerce?: boolean;
  format?: string;
  checks?: { _zod: { def: { check?: string; format?: string } } }[];
}

const def = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** The schema under optional/nullable/default/readonly/catch/lazy wrappers and a pipe's input side. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let i = 0; i < 64; i++) {
    const d = def(s);
    if (WRAPPERS.has(d.type) && d.innerType) s = d.innerType;
    else if (d.type === 'lazy' && d.getter) s = d.getter();
    else if (d.type === 'pipe' && d.in) s = d.in;
    else return s;
  }
  return s;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function isIntegerNumber(d: Def): boolean {
  const formats = [d.format, ...(d.checks ?? []).map((c) => c._zod.def.format)];
  return formats.some((f) => typeof f === 'string' && /int/.test(f));
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const JSON_INTEGER = /^-?(?:0|[1-9]\d*)$/;

/** The number a canonical literal stands for, or undefined. */
function canonicalNumber(text: string, integer: boolean): number | undefined {
  if (text.length > 64 || !(integer ? JSON_INTEGER : JSON_NUMBER).test(text)) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n)) return undefined;
  if (integer && !Number.isSafeInteger(n)) return undefined;
  return n;
}

export interface CoerceResult {
  value: unknown;
  /** Paths of the values that were coerced. */
  coerced: Path[];
}

/** See the module doc. Returns a new value (the input is not modified) and the coerced paths. */
export function coerceScalars(schema: z.ZodType, value: unknown, path: Path = []): CoerceResult {
  const s = unwrap(schema);
  const d = def(s);
  if (typeof value === 'string') {
    if (d.type === 'number' && !d.coerce) {
      const n = canonicalNumber(value, isIntegerNumber(d));
      return n === undefined ? { value, coerced: [] } : { value: n, coerced: [path] };
    }
    if (d.type === 'boolean' && !d.coerce && (value === 'true' || value === 'false')) return { value: value === 'true', coerced: [path] };
    return { value, coerced: [] };
  }
  if (d.type === 'object' && d.shape && isRecord(value)) {
    const out: Record<string, unknown> = { ...value };
    const coerced: Path[] = [];
    for (const [key, child] of Object.entries(d.shape)) {
      if (!(key in value)) continue;
      const r = coerceScalars(child, value[key], [...path, key]);
      out[key] = r.value;
      coerced.push(...r.coerced);
    }
    return coerced.length > 0 ? { value: out, coerced } : { value, coerced };
  }
  if (d.type === 'array' && d.element && Array.isArray(value)) {
    const element = d.element;
    const rs = value.map((v, i) => coerceScalars(element, v, [...path, i]));
    const coerced = rs.flatMap((r) => r.coerced);
    return coerced.length > 0 ? { value: rs.map((r) => r.value), coerced } : { value, coerced };
  }
  if (d.type === 'record' && d.valueType && isRecord(value)) {
    const valueType = d.valueType;
    const out: Record<string, unknown> = {};
    const coerced: Path[] = [];
    for (const [key, v] of Object.entries(value)) {
      const r = coerceScalars(valueType, v, [...path, key]);
      out[key] = r.value;
      coerced.push(...r.coerced);
    }
    return coerced.length > 0 ? { value: out, coerced } : { value, coerced };
  }
  if (d.type === 'union' && d.options) {
    if (s.safeParse(value).success) return { value, coerced: [] };
    for (const option of d.options) {
      const r = coerceScalars(option, value, path);
      if (r.coerced.length > 0 && option.safeParse(r.value).success) return r;
    }
  }
  return { value, coerced: [] };
}

/** See the module doc: paths of keys the schema does not name (empty when there are none). */
export function unknownKeys(schema: z.ZodType, value: unknown, path: Path = []): Path[] {
  const s = unwrap(schema);
  const d = def(s);
  if (d.type === 'object' && d.shape && isRecord(value)) {
    const shape = d.shape;
    const found: Path[] = [];
    for (const key of Object.keys(value)) {
      if (key in shape) found.push(...unknownKeys(shape[key], value[key], [...path, key]));
      else if (d.catchall === undefined) found.push([...path, key]);
    }
    return found;
  }
  if (d.type === 'array' && d.element && Array.isArray(value)) {
    const element = d.element;
    return value.flatMap((v, i) => unknownKeys(element, v, [...path, i]));
  }
  if (d.type === 'tuple' && d.items && Array.isArray(value)) {
    const items = d.items;
    const rest = d.rest ?? undefined;
    return value.flatMap((v, i) => {
      const child = i < items.length ? items[i] : rest;
      return child ? unknownKeys(child, v, [...path, i]) : [];
    });
  }
  if (d.type === 'record' && d.valueType && isRecord(value)) {
    const valueType = d.valueType;
    return Object.entries(value).flatMap(([k, v]) => unknownKeys(valueType, v, [...path, k]));
  }
  if (d.type === 'union' && d.options) {
    const picked = d.options.find((o) => o.safeParse(value).success);
    return picked ? unknownKeys(picked, value, path) : [];
  }
  if (d.type === 'intersection' && d.left && d.right) {
    const right = new Set(unknownKeys(d.right, value, path).map((p) => JSON.stringify(p)));
    return unknownKeys(d.left, value, path).filter((p) => right.has(JSON.stringify(p)));
  }
  return [];
}
