/**
 * Duplicate keys in a JSON text: `{"input":"a","input":"b"}` is valid JSON that every parser reads
 * as one key whose value is the last one, so the first value is silently dropped — a client bug
 * the service refuses (400 `duplicate_json_key`, src/http/json-body.ts) instead of guessing.
 *
 * The scan is one linear pass over the text (strings skipped with indexOf), keeping a Set of the keys of each object open on the current
 * path: O(length) time, memory bounded by the keys of the open objects. It runs after the body was
 * parsed, so it may assume the text is valid JSON (no syntax checks of its own).
 */
import { issuePath } from '../zod-messages.js';

/** Path segments shown (as src/http/json-body.ts shows paths: the full path could be very long). */
const PATH_SHOWN = 12;

type Frame = { kind: 'object'; keys: Set<string>; key: string | undefined; expectKey: boolean } | { kind: 'array'; index: number };

/** Index of the `"` closing the string whose opening quote is at `start` (escaped quotes skipped). */
function stringEnd(text: string, start: number): number {
  let i = start;
  for (;;) {
    i = text.indexOf('"', i + 1);
    let backslashes = 0;
    while (text.charCodeAt(i - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
}

function pathOf(stack: Frame[], key: string): string {
  const keys: (string | number)[] = [];
  for (const f of stack.slice(0, -1)) keys.push(f.kind === 'array' ? f.index : f.key!);
  keys.push(key);
  return keys.length > PATH_SHOWN ? `${issuePath(keys.slice(0, PATH_SHOWN))}…` : issuePath(keys);
}

/**
 * The first key that appears twice in one object of the JSON text `text` (which must be valid
 * JSON; a leading byte order mark is skipped), compared after unescaping (`"a"` and `"\u0061"` are
 * the same key).
 * @returns `{key, path}`: the key as decoded, and its path spelled as every 400 spells paths
 *   (`input`, `metadata.a`, `tasks[1].prompt`; src/zod-messages.ts `issuePath`, cut after 12
 *   segments); undefined when every object's keys are distinct.
 */
export function duplicateKeyPath(text: string): { key: string; path: string } | undefined {
  const stack: Frame[] = [];
  let top: Frame | undefined;
  for (let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; i < text.length; i++) {
    switch (text.charCodeAt(i)) {
      case 0x7b: // {
        stack.push((top = { kind: 'object', keys: new Set(), key: undefined, expectKey: true }));
        break;
      case 0x5b: // [
        stack.push((top = { kind: 'array', index: 0 }));
        break;
      case 0x7d: // }
      case 0x5d: // ]
        stack.pop();
        top = stack[stack.length - 1];
        break;
      case 0x2c: // ,
        if (top?.kind === 'array') top.index++;
        else if (top) top.expectKey = true;
        break;
      case 0x22: {
        // '"': a key when an object expects one, else a string value; skipped either way.
        const end = stringEnd(text, i);
        if (top?.kind === 'object' && top.expectKey) {
          const raw = text.slice(i + 1, end);
          const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
          if (top.keys.has(key)) return { key, path: pathOf(stack, key) };
          top.keys.add(key);
          top.key = key;
          top.expectKey = false;
        }
        i = end;
        break;
      }
    }
  }
  return undefined;
}
