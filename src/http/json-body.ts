/**
 * The one `application/json` body parser of the app (replaces Fastify's default, keeping its
 * `__proto__` / `constructor.prototype` poisoning checks and its error codes), so every route that
 * takes a JSON body gets the same guards before any route code runs:
 * - charset: absent or `utf-8` (RFC 8259 §8.1: JSON exchanged between systems is UTF-8); any other
 *   charset → 415 `unsupported_media_type` (the body would otherwise be misread as UTF-8).
 * - depth: at most {@link MAX_JSON_DEPTH} nested arrays/objects → else 400 `invalid_request` with
 *   details `[{path, code: 'too_deep', message}]`. Deeper values would overflow the stack of the
 *   recursive code that later walks them (JSON.stringify in size checks, zod, the serializer).
 * - prototype keys: an object key `__proto__`, or a `constructor` object with a `prototype` key,
 *   is refused (as Fastify's parser does, against prototype poisoning) with 400
 *   `forbidden_json_key` naming the key and its path and saying to rename it
 *   ({@link forbiddenKeyError}) — not `invalid_json`: the body is valid JSON.
 * - duplicate keys: a key given twice in one object (`{"input":"a","input":"b"}`) → 400
 *   `duplicate_json_key` naming the key and its path ({@link duplicateKeyError}): a parser keeps
 *   the last value, so the client's other value would be silently dropped. One linear scan of the
 *   text (src/http/duplicate-keys.ts), after the depth check.
 * - encoding: bytes that are not valid UTF-8 → 400 `invalid_json` (instead of being replaced by
 *   U+FFFD and reaching the model mangled).
 * - syntax: malformed JSON → 400 `invalid_json` with the parser's position and what to send,
 *   details `[{path: "", code: "invalid_json", message}]`. A leading UTF-8 byte order mark is
 *   skipped (as secure-json-parse does), in every check.
 * - empty: a body of zero bytes is no body (`request.body` stays undefined), as without a
 *   Content-Type: routes whose body is optional (cancel, stop) accept it, routes that need one
 *   answer their usual 400 `invalid_request` (`the request body is required: …`).
 * The walks are iterative, so they cannot overflow themselves.
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { escapeUnsafeChars, escapeUnsafeCharsClipped, quoteForDisplayClipped } from '../unsafe-chars.js';
import { issuePath } from '../zod-messages.js';
import { duplicateKeyPath } from './duplicate-keys.js';
import { HttpError } from './errors.js';

/** Max nesting of arrays/objects in a JSON request body (the body object itself is level 1). */
export const MAX_JSON_DEPTH = 64;

/** Path segments shown in a too-deep error (the full path could be thousands of segments). */
const PATH_SHOWN = 12;

interface Frame {
  value: unknown;
  depth: number;
  /** Field name, or list index. */
  key: string | number | null;
  parent: Frame | null;
}

function pathOf(frame: Frame): string {
  const keys: (string | number)[] = [];
  for (let f: Frame | null = frame; f; f = f.parent) if (f.key !== null) keys.push(f.key);
  keys.reverse();
  return keys.length > PATH_SHOWN ? `${issuePath(keys.slice(0, PATH_SHOWN))}…` : issuePath(keys);
}

/**
 * Find the first array/object nested deeper than `maxDepth` levels in a parsed JSON value.
 * @returns the path to it, spelled as every 400 spells paths (`metadata.a[0][0]…`, cut after 12
 *   segments; src/zod-messages.ts `issuePath`), or undefined.
 */
export function tooDeepPath(value: unknown, maxDepth = MAX_JSON_DEPTH): string | undefined {
  const stack: Frame[] = [{ value, depth: 1, key: null, parent: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (v === null || typeof v !== 'object') continue;
    if (frame.depth > maxDepth) return pathOf(frame);
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    for (const [key, child] of entries) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: frame.depth + 1, key, parent: frame });
    }
  }
  return undefined;
}

/**
 * Find the first key of a parsed JSON value that Fastify's parser refuses as prototype poisoning:
 * an own `__proto__` key, or an own `constructor` object with an own `prototype` key.
 * @returns `{key, path}`: `key` is `__proto__` or `constructor.prototype`, `path` the path
 *   to it (`metadata.__proto__`, `metadata.list[1].__proto__`, cut after 12 segments); undefined
 *   when there is none.
 */
export function forbiddenKeyPath(value: unknown): { key: string; path: string } | undefined {
  const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
  const stack: Frame[] = [{ value, depth: 1, key: null, parent: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (v === null || typeof v !== 'object') continue;
    if (!Array.isArray(v)) {
      const at = (key: string) => pathOf({ value: null, depth: 0, key, parent: frame });
      if (has(v, '__proto__')) return { key: '__proto__', path: at('__proto__') };
      const ctor = (v as Record<string, unknown>).constructor;
      if (has(v, 'constructor') && ctor !== null && typeof ctor === 'object' && has(ctor, 'prototype')) {
        return { key: 'constructor.prototype', path: at('constructor.prototype') };
      }
    }
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i];
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: frame.depth + 1, key, parent: frame });
    }
  }
  return undefined;
}

/** True when `s` holds a UTF-16 surrogate without its pair (not valid Unicode text). */
const isIllFormed = (s: string): boolean => !(s as string & { isWellFormed(): boolean }).isWellFormed();
/** `s` with each unpaired surrogate as U+FFFD (a path shown in an error must be valid Unicode too). */
const wellFormed = (s: string): string => (s as string & { toWellFormed(): string }).toWellFormed();

/**
 * The path of the first string (value or key) in `value` holding an unpaired UTF-16 surrogate —
 * what the JSON escape `\ud83d` alone decodes to (UTF-8 bytes cannot encode one: isUtf8 refuses
 * them) — or undefined when every string is valid Unicode. Such a string would be stored and
 * sent on as `\ud83d`, which strict JSON parsers (jq, Go, Rust's serde) refuse, breaking every
 * later read of the turn, list and stream that contains it. The path is shown with U+FFFD for
 * such a character in a key.
 */
export function loneSurrogatePath(value: unknown): string | undefined {
  const stack: Frame[] = [{ value, depth: 1, key: null, parent: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (typeof v === 'string') {
      if (isIllFormed(v)) return wellFormed(pathOf(frame)) || '(root)';
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i];
      if (typeof key === 'string' && isIllFormed(key)) return wellFormed(pathOf({ value: null, depth: 0, key, parent: frame }));
      stack.push({ value: child, depth: frame.depth + 1, key, parent: frame });
    }
  }
  return undefined;
}

/** 400 `invalid_json` for a string with an unpaired surrogate ({@link loneSurrogatePath}). */
export function loneSurrogateError(path: string): HttpError {
  const message = 'contains an unpaired UTF-16 surrogate escape (such as \\ud83d without its low half), which is not valid Unicode';
  return new HttpError(400, 'invalid_json', `request body: ${path} ${message}; send the character itself in UTF-8 or both halves of its surrogate pair (\\ud83d\\ude00)`, [
    { path, code: 'invalid_unicode', message },
  ]);
}

/** 400 `forbidden_json_key` for a body with a prototype key ({@link forbiddenKeyPath}). */
export function forbiddenKeyError(found: { key: string; path: string }): HttpError {
  const message = `the JSON key "${found.key}" (at ${found.path}) is not accepted, because it can change object prototypes: rename the key`;
  return new HttpError(400, 'forbidden_json_key', message, [{ path: found.path, code: 'forbidden_key', message: `"${found.key}" is not accepted as a key` }]);
}

/** 400 `duplicate_json_key` for a key given twice in one object ({@link duplicateKeyPath}). */
export function duplicateKeyError(found: { key: string; path: string }): HttpError {
  // Quoted as every refusal quotes a client's text (control and bidi characters as \uXXXX, cut at 80 characters).
  const key = quoteForDisplayClipped(found.key);
  const message = `the JSON key ${key} appears more than once in one object (at ${found.path})`;
  return new HttpError(400, 'duplicate_json_key', `${message}: JSON parsers keep only the last value, so the others would be silently dropped; send each key once`, [
    { path: found.path, code: 'duplicate_key', message: `${key} is given more than once` },
  ]);
}

/**
 * The parsed body when `text` is valid JSON (JSON.parse makes `__proto__` an own key; nothing is
 * polluted), else what JSON.parse says is wrong (e.g. "Unexpected end of JSON input"). A leading
 * UTF-8 byte order mark is skipped first, as secure-json-parse (Fastify's parser) skips it, so both
 * parse the same text.
 */
function parseLoosely(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * 400 `invalid_json` naming where parsing failed, and what to send instead. `reason` is the
 * parser's, which quotes a few characters of the body (`Unexpected token '…', "{"a":…}" is not
 * valid JSON`): those are shown with unsafe characters as `\uXXXX` ({@link escapeUnsafeChars}).
 */
export function invalidJsonError(parserReason: string): HttpError {
  const reason = escapeUnsafeChars(parserReason);
  return new HttpError(400, 'invalid_json', `request body is not valid JSON (${reason}); send one JSON value, e.g. {"input": "…"}, without trailing commas or comments`, [
    { path: '', code: 'invalid_json', message: reason },
  ]);
}

/** 400 `invalid_request` for a body nested deeper than {@link MAX_JSON_DEPTH}, saying to send at most that many levels. */
export function tooDeepError(path: string): HttpError {
  const message = `JSON nested more than ${MAX_JSON_DEPTH} levels deep: send at most ${MAX_JSON_DEPTH} levels of nested arrays and objects`;
  return new HttpError(400, 'invalid_request', `request body is ${message}`, [{ path, code: 'too_deep', message }]);
}

/** The `charset` parameter of a Content-Type header, lower-cased, or undefined when absent. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType ?? '');
  return m ? m[2].toLowerCase() : undefined;
}

/** Replace the app's `application/json` parser with the guarded one (call before routes). */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw, done) => {
    const encoding = String(request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (encoding !== 'identity' && encoding !== '') {
      done(new HttpError(415, 'unsupported_media_type', `Content-Encoding ${quoteForDisplayClipped(encoding)} is not supported; send the JSON body uncompressed (no Content-Encoding)`, { content_type: 'application/json', accepted: ['application/json'], content_encoding: escapeUnsafeCharsClipped(encoding) }), undefined);
      return;
    }
    const charset = charsetOf(request.headers['content-type']);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      done(new HttpError(415, 'unsupported_media_type', `charset ${quoteForDisplayClipped(charset)} is not supported: send the JSON body encoded as UTF-8 with Content-Type: application/json (no charset, or charset=utf-8)`, { content_type: 'application/json', accepted: ['application/json'], charset: escapeUnsafeCharsClipped(charset) }), undefined);
      return;
    }
    if (!isUtf8(raw as Buffer)) {
      const message = 'request body is not valid UTF-8';
      done(new HttpError(400, 'invalid_json', `${message}; send JSON encoded as UTF-8`, [{ path: '', code: 'invalid_json', message }]), undefined);
      return;
    }
    // Many clients send `Content-Type: application/json` with an empty POST: that is no body.
    if ((raw as Buffer).length === 0) return done(null, undefined);
    const body = (raw as Buffer).toString('utf8');
    parseJson(request, body, (err: Error | null, value?: unknown) => {
      if (err) {
        // Fastify reports a prototype key as invalid JSON; say what it is when the JSON is valid.
        if ((err as { code?: string }).code !== 'FST_ERR_CTP_INVALID_JSON_BODY') return done(err, undefined);
        const loose = parseLoosely(body);
        if ('error' in loose) return done(invalidJsonError(loose.error), undefined);
        // secure-json-parse runs JSON.parse on the same text (BOM skipped), then refuses exactly
        // what forbiddenKeyPath finds: text JSON.parse accepts fails it only with such a key.
        return done(forbiddenKeyError(forbiddenKeyPath(loose.value)!), undefined);
      }
      const deep = tooDeepPath(value);
      if (deep !== undefined) return done(tooDeepError(deep), undefined);
      // Only an object with two keys or more can repeat one (saves the scan of `{"input":"…"}`).
      const twice = body.includes(',') ? duplicateKeyPath(body) : undefined;
      if (twice !== undefined) return done(duplicateKeyError(twice), undefined);
      // Only an escape can make an unpaired surrogate; bodies without one are not walked.
      const lone = body.includes('\\u') ? loneSurrogatePath(value) : undefined;
      if (lone !== undefined) return done(loneSurrogateError(lone), undefined);
      done(null, value);
    });
  });
}
