/**
 * JSON for stored events that never throws. `JSON.stringify` throws on a circular reference, a
 * BigInt, a throwing `toJSON`/getter, and overflows the stack on values nested a few thousand
 * levels deep (e.g. tool arguments or `details` built from model output). An event the log cannot
 * store would silently go missing from the stream, so instead each offending field is replaced by
 * the string `"[unserializable: <reason>]"` and the rest of the event is kept.
 */

/** Nesting beyond this many levels is replaced by a marker (JSON request bodies allow 64). */
export const SAFE_JSON_MAX_DEPTH = 64;

/** The replacement of an unserializable field, e.g. `[unserializable: circular reference]`. */
export const unserializable = (reason: string): string => `[unserializable: ${reason}]`;

/** A lone surrogate as JSON.stringify writes it (`\udXXX`, D800–DFFF), after an even run of backslashes. */
const LONE_SURROGATE_ESCAPE = /(?<!\\)(?:\\\\)*\\ud[89a-f][0-9a-f]{2}/i;

/**
 * `JSON.stringify(value)`, or — when that throws — the JSON of a copy in which every field that
 * cannot be serialized (circular, BigInt, throwing toJSON or getter, nested deeper than
 * {@link SAFE_JSON_MAX_DEPTH}) is replaced by {@link unserializable}. A string value holding an
 * unpaired UTF-16 surrogate (e.g. half an emoji cut by a provider) is written with U+FFFD in its
 * place (`String.prototype.toWellFormed`): JSON.stringify would write the escape `\ud83d`,
 * which strict JSON parsers (jq, Go, serde) refuse. `replaced` tells when the JSON is not that of
 * `value` as it is.
 */
export function safeStringify(value: unknown): { json: string; replaced: boolean } {
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) {
      // The includes() is the cheap test (JSON.stringify writes lower-case hex); the pattern rules out a literal `\\ud…`.
      if (!json.includes('\\ud') || !LONE_SURROGATE_ESCAPE.test(json)) return { json, replaced: false };
      const wellFormed = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? (v as string & { toWellFormed(): string }).toWellFormed() : v));
      return { json: wellFormed, replaced: true };
    }
  } catch {
    // fall through to the sanitizing copy
  }
  try {
    return { json: JSON.stringify(sanitize(value, '', 0, new Set())) ?? 'null', replaced: true };
  } catch (err) {
    return { json: JSON.stringify(unserializable(errorText(err))), replaced: true };
  }
}

function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** A JSON-safe copy of `value` (recursion bounded by SAFE_JSON_MAX_DEPTH). */
function sanitize(value: unknown, key: string, depth: number, ancestors: Set<object>): unknown {
  if (typeof value === 'bigint') return unserializable('BigInt');
  if (value === null || typeof value !== 'object') return value;
  let v: unknown = value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    try {
      v = toJSON.call(value, key);
    } catch (err) {
      return unserializable(`toJSON threw: ${errorText(err)}`);
    }
    if (v === null || typeof v !== 'object') return typeof v === 'bigint' ? unserializable('BigInt') : v;
  }
  const obj = v as object;
  if (ancestors.has(obj)) return unserializable('circular reference');
  if (depth >= SAFE_JSON_MAX_DEPTH) return unserializable(`nested deeper than ${SAFE_JSON_MAX_DEPTH} levels`);
  ancestors.add(obj);
  try {
    if (Array.isArray(obj)) return obj.map((item, i) => sanitize(item, String(i), depth + 1, ancestors));
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(obj)) {
      let child: unknown;
      try {
        child = (obj as Record<string, unknown>)[k];
      } catch (err) {
        out[k] = unserializable(`getter threw: ${errorText(err)}`);
        continue;
      }
      out[k] = sanitize(child, k, depth + 1, ancestors);
    }
    return out;
  } finally {
    ancestors.delete(obj);
  }
}
