/**
 * zod 4 error messages that say what is missing or wrong and what is accepted, for every schema
 * in the process (`z.config({ customError })`, installed once on import). A message a schema
 * sets itself (`z.string().min(1, '…')`, `{ error }`) still wins: zod consults the global map
 * only for issues without one.
 *
 * Messages are written to follow the field's path (the HTTP error handler prints
 * `input is required: …`; tools print `- input: is required: …`):
 * - missing value → `is required: <accepted shape>`;
 * - wrong type → `must be <accepted shape>, got <kind>`;
 * - no union option matched → `must be <shape of every option>`, plus, when one option matched
 *   the kind of value given (say a list) and failed deeper, `; at <path>: <that failure>`;
 * - bad enum/literal → `must be one of a|b|c, got "x"` (a string quoted by quoteForDisplayClipped,
 *   another value as its kind: `got an object`);
 * - unknown keys → `has unknown field(s) "x": accepted fields are a, b?, …` (each name quoted by
 *   quoteForDisplayClipped: a name over 80 characters as its start and its length; the first 20
 *   names, MAX_LISTED_ISSUES, then `and N more`);
 * - sizes → `must not be empty`, `must be at least 3 characters long, got 2`, `must be at most
 *   500, got 501`, `must be greater than 0`, `must have at most 64 items, got 70`;
 * - formats → `must match the pattern /^…$/`, `must be a URL`, `must be an ISO 8601 date-time (…)`,
 *   `must start with "x"`, … (never echoing the value: it may hold a secret);
 * - `must be a multiple of n`, `has an invalid key "k": <why>`, and `is not valid` for a
 *   refinement without its own message.
 * Shapes are derived from the schema itself ({@link describeShape}), never written per route.
 */
import { z } from 'zod';
import { MAX_LISTED_ISSUES } from './errors.js';
import { keepHead } from './runtime/text-cut.js';
import { escapeUnsafeChars, MAX_QUOTED_CHARS, quoteForDisplay, quoteForDisplayClipped } from './unsafe-chars.js';
import { formatMessage, sizeMessage, type BoundIssue } from './zod-bounds.js';

/** The parts of a zod 4 schema's definition this module reads. */
interface Def {
  type: string;
  innerType?: Schema;
  in?: Schema;
  element?: Schema;
  shape?: Record<string, Schema>;
  options?: Schema[];
  entries?: Record<string, string | number>;
  values?: unknown[];
  checks?: { _zod: { def: { check?: string; format?: string } } }[];
  format?: string;
}
interface Schema {
  _zod: { def: Def };
}

const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch', 'nonoptional']);

function unwrap(schema: Schema): Schema {
  let s = schema;
  for (let i = 0; i < 20; i++) {
    const def = s._zod.def;
    if (WRAPPERS.has(def.type) && def.innerType) s = def.innerType;
    else if (def.type === 'pipe' && def.in) s = def.in;
    else break;
  }
  return s;
}

/** Schemas marked by {@link requiredInMessages}. */
const CHECKED_LATER = new WeakSet<object>();

/**
 * Mark a field's schema as required in messages (`when`, not `when?`, in an unknown-field list)
 * although it lets a missing value through, because a later check reports the missing field with
 * its own code (a schedule's `when`: `invalid_when`). Returns `schema`.
 */
export function requiredInMessages<T extends object>(schema: T): T {
  CHECKED_LATER.add(schema);
  return schema;
}

function isOptional(schema: Schema): boolean {
  if (CHECKED_LATER.has(schema)) return false;
  const t = schema._zod.def.type;
  return t === 'optional' || t === 'default' || t === 'prefault';
}

function isInteger(def: Def): boolean {
  return def.format === 'safeint' || def.format === 'int32' || (def.checks ?? []).some((c) => c._zod.def.format === 'safeint');
}

/**
 * A short human description of what a schema accepts, e.g. `a string or a list of {role:
 * user|assistant|system|developer, content: string}`. `bare` drops the article (inside braces).
 * Objects are spelled out to one level of nesting; deeper ones are `an object`.
 */
export function describeShape(schema: Schema, bare = false, depth = 0): string {
  const s = unwrap(schema);
  const def = s._zod.def;
  const a = (article: string, noun: string) => (bare ? noun : `${article} ${noun}`);
  switch (def.type) {
    case 'string':
      return a('a', 'string');
    case 'number':
    case 'int':
      return isInteger(def) ? a('an', 'integer') : a('a', 'number');
    case 'bigint':
      return a('an', 'integer');
    case 'boolean':
      return bare ? 'boolean' : 'true or false';
    case 'null':
      return 'null';
    case 'enum':
      return Object.values(def.entries ?? {}).join('|');
    case 'literal':
      return (def.values ?? []).map((v) => JSON.stringify(v)).join('|');
    case 'array':
      return def.element ? `${bare ? 'list' : 'a list'} of ${describeShape(def.element, true, depth + 1)}` : a('a', 'list');
    case 'object': {
      if (depth > 1 || !def.shape) return a('an', 'object');
      const fields = Object.entries(def.shape).map(([k, v]) => `${k}${isOptional(v) ? '?' : ''}: ${describeShape(v, true, depth + 1)}`);
      return `{${fields.join(', ')}}`;
    }
    case 'record':
      return a('an', 'object');
    case 'union':
      return (def.options ?? []).map((o) => describeShape(o, bare, depth)).join(' or ');
    default:
      return bare ? 'value' : 'any value';
  }
}

/**
 * What the client sent: a short value as JSON (`1.5`, `null`; a string quoted by quoteForDisplay,
 * `"3"`, a bidi control in it as `\u202E`), else its kind (`a list`).
 */
function kindOf(input: unknown): string {
  if (input === Infinity || input === -Infinity) return 'a number out of range (too large to represent)';
  if (typeof input === 'number' && !Number.isFinite(input)) return 'something that is not a number';
  if (input === null || typeof input === 'number' || typeof input === 'boolean') return JSON.stringify(input);
  if (typeof input === 'string') return input.length <= 40 ? quoteForDisplay(input) : 'a long string';
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'an object';
  return `a ${typeof input}`;
}

/**
 * The one spelling of a path into a request, in every 400's `message` and `details[].path` alike
 * (README "API"): list indexes in brackets, field names after dots — `tools[0]`,
 * `input[1].role`, `metadata.a[0][0]`; `[0].role` for a path that starts at an index; `""` for
 * the value as a whole. A field name's characters that src/unsafe-chars.ts refuses in names
 * (control characters, bidi controls, invisible characters) are written as `\uXXXX`
 * (`escapeUnsafeChars`: `metadata.invo\u202Ece`), so a client's key echoed in a path cannot act
 * on the reader's display. A field name over {@link MAX_QUOTED_CHARS} characters is shown by its
 * start and its length (`metadata.kkkk… (500000 characters)`), so a path stays short whatever
 * key was sent.
 */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? keyForDisplay(String(p)) : `.${keyForDisplay(String(p))}`)).join('');
}

/** A field name in a path: unsafe characters as `\uXXXX`; over {@link MAX_QUOTED_CHARS} characters, its start and its length. */
function keyForDisplay(key: string): string {
  return key.length <= MAX_QUOTED_CHARS ? escapeUnsafeChars(key) : `${escapeUnsafeChars(keepHead(key, MAX_QUOTED_CHARS))}… (${key.length} characters)`;
}

interface RawIssue extends BoundIssue {
  code: string;
  input?: unknown;
  inst?: unknown;
  path?: PropertyKey[];
  message?: string;
  values?: unknown[];
  keys?: string[];
  errors?: OptionIssue[][];
  divisor?: number;
  issues?: { message: string }[];
}

/** A zod issue as the error envelope reads it; a union's carries its options' issues in `errors`. */
export interface OptionIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  errors?: OptionIssue[][];
}

/**
 * The failures of the union option that accepted the kind of value given: preferably one whose
 * failures all lie inside the value (a list whose `[0].role` is wrong, an object whose `todo` is),
 * else one that did not fail on the value's type (a string that is too short). Undefined when no
 * option accepted the kind (then the union's own message is the whole story).
 */
function matchedOption(errors: OptionIssue[][] | undefined): OptionIssue[] | undefined {
  const options = (errors ?? []).filter((errs) => errs.length > 0);
  return options.find((errs) => errs.every((e) => e.path.length > 0)) ?? options.find((errs) => errs.every((e) => e.path.length > 0 || e.code !== 'invalid_type'));
}

/**
 * `issues` with every `invalid_union` whose matching option failed inside the value replaced by
 * that option's failures, their paths joined to the union's (nested unions likewise), so a 400
 * names the innermost field in `message` and `details[].path` alike: `input[1].role`
 * `invalid_value`, `approvals.todo` — not `input` `invalid_union`. A union that no option's kind
 * matched, or whose match failed on the value itself, stays as it is.
 */
export function innermostIssues(issues: readonly OptionIssue[]): OptionIssue[] {
  return issues.flatMap((issue) => {
    const option = issue.code === 'invalid_union' ? matchedOption(issue.errors) : undefined;
    if (!option || !option.every((e) => e.path.length > 0)) return [issue];
    return innermostIssues(option.map((e) => ({ ...e, path: [...issue.path, ...e.path] })));
  });
}

function unionMessage(iss: RawIssue): string | undefined {
  const shape = iss.inst ? describeShape(iss.inst as Schema) : undefined;
  if (!shape) return undefined;
  if (iss.input === undefined) return `is required: ${shape}`;
  // An option that accepted the kind of value (its failures are deeper than the value itself).
  const first = matchedOption(iss.errors)?.[0];
  if (first) {
    const at = issuePath(first.path);
    return `must be ${shape}; ${at ? `at ${at}: ` : ''}${first.message}`;
  }
  return `must be ${shape}, got ${kindOf(iss.input)}`;
}

/** The global message map (exported for tests). Returns undefined to keep zod's own message. */
export function customError(iss: RawIssue): string | undefined {
  switch (iss.code) {
    case 'invalid_union':
      return unionMessage(iss);
    case 'invalid_type': {
      const shape = iss.inst ? describeShape(iss.inst as Schema) : undefined;
      if (!shape) return undefined;
      return iss.input === undefined ? `is required: ${shape}` : `must be ${shape}, got ${kindOf(iss.input)}`;
    }
    case 'invalid_value': {
      const values = (iss.values ?? []).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
      if (values.length === 0) return undefined;
      if (iss.input === undefined) return `is required: one of ${values.join('|')}`;
      // A string quoted, escaped and clipped (a bidi control or 500,000 characters are not echoed raw); anything else as kindOf shows it.
      const got = typeof iss.input === 'string' ? quoteForDisplayClipped(iss.input) : kindOf(iss.input);
      return `must be ${values.length === 1 ? values[0] : `one of ${values.join('|')}`}, got ${got}`;
    }
    case 'unrecognized_keys': {
      // The first MAX_LISTED_ISSUES names, as a refusal lists at most that many problems; each
      // quoted so a name with a line break or a bidi control cannot act on the reader's display,
      // and clipped, so a name of 500,000 characters is not echoed whole.
      const all = iss.keys ?? [];
      const more = all.length - MAX_LISTED_ISSUES;
      const keys = all.slice(0, MAX_LISTED_ISSUES).map((k) => quoteForDisplayClipped(String(k))).join(', ') + (more > 0 ? ` and ${more} more` : '');
      const shape = (iss.inst as Schema | undefined)?._zod.def.shape;
      const accepted = shape ? Object.entries(shape).map(([k, v]) => `${k}${isOptional(v) ? '?' : ''}`) : [];
      const plural = all.length === 1 ? 'field' : 'fields';
      return `has unknown ${plural} ${keys}${accepted.length ? `: accepted fields are ${accepted.join(', ')}` : ''}`;
    }
    case 'too_small':
    case 'too_big':
      return sizeMessage(iss);
    case 'invalid_format':
      return formatMessage(iss);
    case 'not_multiple_of':
      return iss.divisor === undefined ? undefined : `must be a multiple of ${iss.divisor}`;
    case 'invalid_key': {
      const why = iss.issues?.[0]?.message;
      const key = typeof iss.input === 'string' && iss.input.length <= 40 ? ` ${quoteForDisplay(iss.input)}` : '';
      return `has an invalid key${key}${why ? `: ${why}` : ''}`;
    }
    case 'invalid_element': {
      const why = iss.issues?.[0]?.message;
      return `has an invalid element${why ? `: ${why}` : ''}`;
    }
    case 'custom':
      return 'is not valid';
    default:
      return undefined;
  }
}

z.config({ customError: customError as never });

/**
 * One line per issue, each `<path> <message>` (`input is required: a string or …`), or just the
 * message for an issue at the root. Used for the envelope's `message` and for tool errors.
 */
export function issueLine(issue: { path: readonly PropertyKey[]; message: string }): string {
  const at = issuePath(issue.path);
  if (!at || issue.message.startsWith(`${at} `)) return issue.message;
  return /^(is|must|has) /.test(issue.message) ? `${at} ${issue.message}` : `${at}: ${issue.message}`;
}
