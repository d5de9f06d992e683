/**
 * The `pattern` keyword of a workflow task's `result_schema`, evaluated only with a linear-time
 * engine: re2js (a pure-JS port of RE2). Result schemas come from API clients and from the model
 * (`workflow_start`), so a pattern like `^(a+)+$` run by V8's backtracking `RegExp` against
 * `"aaaa…a!"` would block the event loop (and the whole service) for seconds or more; RE2 matches
 * in time linear in the input, whatever the pattern.
 *
 * Semantics: JSON Schema `pattern` is an unanchored search (draft-07 §6.3.3), which is what
 * `RE2JS#test` does. RE2 syntax is close to ECMAScript's but refuses backreferences (`\1`) and
 * lookaround (`(?=…)`, `(?!…)`, `(?<=…)`, `(?<!…)`); such patterns are refused when the workflow is
 * created (see {@link checkResultPattern}). ECMAScript `\uXXXX` / `\u{X…}` escapes are translated
 * to RE2's `\x{…}`. Known small differences: RE2's `\s` and `.` are ASCII/`\n`-based (`.` does not
 * match `\n` only; ECMAScript also excludes `\r`, U+2028, U+2029).
 */
import { RE2JS } from 're2js';
import type { RegExpEngine } from 'ajv/dist/types/index.js';

/** Longest `pattern` accepted in a result schema, characters. */
export const MAX_PATTERN_CHARS = 1000;

/**
 * Translate ECMAScript-only escapes to RE2 syntax: `\uXXXX` and `\u{X…}` → `\x{…}`.
 * Other escapes (including `\\`) are copied as they are.
 */
export function toRe2Syntax(pattern: string): string {
  return pattern.replace(/\\(u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|[\s\S])/g, (whole, _esc, braced?: string, four?: string) => {
    const hex = braced ?? four;
    return hex === undefined ? whole : `\\x{${hex}}`;
  });
}

/**
 * Compile a result-schema `pattern` with RE2.
 * @throws Error naming the pattern and the RE2 parse error (e.g. lookaround or backreference), or
 *   the length limit.
 */
export function compileResultPattern(pattern: string): RE2JS {
  if (pattern.length > MAX_PATTERN_CHARS) {
    throw new Error(`pattern is ${pattern.length} characters; the limit is ${MAX_PATTERN_CHARS}`);
  }
  try {
    return RE2JS.compile(toRe2Syntax(pattern));
  } catch (err) {
    throw new Error(
      `not supported: ${(err as Error).message} (patterns are matched with RE2, a linear-time engine: ` +
        'no lookahead/lookbehind like (?=…) or (?<!…), no backreferences like \\1)',
    );
  }
}

/**
 * Check a `pattern` at workflow creation. It must be a valid ECMAScript regex with the `u` flag
 * (what JSON Schema and the provider's strict mode read) and compile with RE2 (what this service
 * evaluates). Only compiles; never runs the pattern.
 * @returns `null` when usable, else a message (without the JSON Pointer prefix).
 */
export function checkResultPattern(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_CHARS) return `is ${pattern.length} characters; the limit is ${MAX_PATTERN_CHARS}`;
  try {
    new RegExp(pattern, 'u'); // compile only: checks ECMAScript syntax, never matches
  } catch (err) {
    return `not a valid regular expression (${(err as Error).message})`;
  }
  try {
    compileResultPattern(pattern);
  } catch (err) {
    return (err as Error).message;
  }
  return null;
}

/**
 * Ajv's `code.regExp` engine (Ajv options, "Advanced options → code.regExp"): returns an object
 * with `test(str)` backed by RE2. `toString()` gives a distinct key per pattern, since Ajv keys its
 * compiled-pattern scope values by it.
 * @throws as {@link compileResultPattern} when the pattern cannot be compiled.
 */
export const re2RegExpEngine: RegExpEngine = Object.assign(
  (pattern: string, _flags: string) => {
    const re = compileResultPattern(pattern);
    return { test: (s: string) => re.test(s), toString: () => `re2:/${pattern}/` };
  },
  { code: 'require("re2js").RE2JS.compile' },
);
