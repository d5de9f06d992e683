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

/**
 * `JSON.stringify(value)`, or — when that throws — the JSON of a copy in which every field that
 * cannot be serialized (circular, BigInt, throwing toJSON or getter, nested deeper than
 * {@link SAFE_JSON_MAX_DEPTH}) is replaced by {@link unserializable}. `replaced` tells which path.
 */
export function safeStringify(value: unknown): { json: string; replaced: boolean } {
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) return { json, replaced: false };
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
