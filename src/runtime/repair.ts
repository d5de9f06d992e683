/**
 * The bounded repair ladder for malformed function-call arguments.
 * Each step runs only when the previous ones failed to produce parseable JSON:
 *   1. `empty`           — empty or whitespace-only arguments → `{}`
 *   2. `code_fence`      — strip a Markdown code fence, or prose around the outermost `{…}`
 *   3. `first_object`    — the first balanced JSON object in the text
 *   4. `close_truncated` — close truncated brackets / drop trailing commas (jsonrepair), but never
 *                          when the text was cut off inside a string (that would invent content)
 * and, after any successful parse:
 *   5. `double_encoded`  — a JSON string whose content is a JSON object is decoded once.
 * Size bounds: over {@link MAX_ARGUMENTS_BYTES} is refused outright; repair (steps 2–4) only up
 * to {@link MAX_REPAIR_BYTES}.
 */
import { jsonrepair } from 'jsonrepair';

/** Arguments larger than this (UTF-8 bytes) are refused: 256 KiB. */
export const MAX_ARGUMENTS_BYTES = 256 * 1024;
/** Arguments larger than this are not repaired: 64 KiB. */
export const MAX_REPAIR_BYTES = 64 * 1024;

export type RepairStep = 'empty' | 'code_fence' | 'first_object' | 'close_truncated' | 'double_encoded';

export type ParseArgumentsResult =
  | { ok: true; value: unknown; repaired?: RepairStep }
  | { ok: false; reason: string };

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Index just past the balanced object starting at `start` (`{`), or -1; string-aware. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** True when the text ends inside an unterminated JSON string. */
function endsInsideString(text: string): boolean {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
  }
  return inString;
}

/** True for the characters of a Markdown fence's language tag (`json`, `json5`, `x-y_z`). */
function isTagChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 45 || code === 95;
}

/**
 * The text inside a Markdown code fence, or between prose and the outermost `{…}`; undefined when
 * neither applies. Linear time: fences are found with indexOf/lastIndexOf, never with a regular
 * expression over the body (a backtracking regex here took 35 s on 4000 spaces after a fence).
 * Fence: the first three backticks, an optional language tag (`[A-Za-z0-9_-]*`), then everything
 * up to the LAST three backticks after it (so backticks inside a JSON string do not cut the body);
 * the body is trimmed.
 */
function stripFence(text: string): string | undefined {
  const open = text.indexOf('```');
  if (open >= 0) {
    let bodyStart = open + 3;
    while (bodyStart < text.length && isTagChar(text.charCodeAt(bodyStart))) bodyStart++;
    const close = text.lastIndexOf('```');
    if (close >= bodyStart) return text.slice(bodyStart, close).trim();
  }
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first > 0 || (first >= 0 && last >= 0 && last < text.trimEnd().length - 1)) {
    if (last > first) return text.slice(first, last + 1);
  }
  return undefined;
}

function decodeTwice(value: unknown, step: RepairStep | undefined): ParseArgumentsResult {
  if (typeof value === 'string') {
    const inner = value.trim();
    if (inner.startsWith('{')) {
      const parsed = tryParse(inner);
      if (parsed.ok && parsed.value !== null && typeof parsed.value === 'object' && !Array.isArray(parsed.value)) {
        return { ok: true, value: parsed.value, repaired: 'double_encoded' };
      }
    }
  }
  return step ? { ok: true, value, repaired: step } : { ok: true, value };
}

/**
 * Parse raw function-call arguments with the repair ladder. Pure; never throws.
 * @returns the parsed value and the repair step used (if any), or a reason for the model.
 */
export function parseArguments(raw: string): ParseArgumentsResult {
  const bytes = Buffer.byteLength(raw, 'utf8');
  if (bytes > MAX_ARGUMENTS_BYTES) {
    return { ok: false, reason: `arguments are ${bytes} bytes, over the ${MAX_ARGUMENTS_BYTES}-byte limit; send smaller arguments (split the work into several calls)` };
  }
  const direct = tryParse(raw);
  if (direct.ok) return decodeTwice(direct.value, undefined);
  if (raw.trim() === '') return { ok: true, value: {}, repaired: 'empty' };
  if (bytes > MAX_REPAIR_BYTES) {
    return { ok: false, reason: `arguments are not valid JSON (and at ${bytes} bytes too large to repair)` };
  }
  const unfenced = stripFence(raw);
  if (unfenced !== undefined) {
    const p = tryParse(unfenced);
    if (p.ok) return decodeTwice(p.value, 'code_fence');
  }
  const start = raw.indexOf('{');
  if (start >= 0) {
    const end = balancedEnd(raw, start);
    if (end > 0) {
      const p = tryParse(raw.slice(start, end));
      if (p.ok) return decodeTwice(p.value, 'first_object');
    }
  }
  const candidate = (unfenced ?? (start >= 0 ? raw.slice(start) : raw)).trim();
  if (endsInsideString(candidate)) {
    return { ok: false, reason: 'arguments are not valid JSON: they were cut off inside a string value; send the complete arguments again' };
  }
  try {
    const repaired = jsonrepair(candidate);
    const p = tryParse(repaired);
    if (p.ok && p.value !== null && typeof p.value === 'object') return decodeTwice(p.value, 'close_truncated');
  } catch {
    // fall through
  }
  return { ok: false, reason: 'arguments are not valid JSON and could not be repaired' };
}
