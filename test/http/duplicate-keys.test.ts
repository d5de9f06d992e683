/** duplicateKeyPath (src/http/duplicate-keys.ts): the first key given twice in one object of a JSON text, and its path. */
import { describe, expect, it } from 'vitest';
import { duplicateKeyPath } from '../../src/http/duplicate-keys.js';

describe('duplicateKeyPath', () => {
  const found: [string, string, string, string][] = [
    ['at the top', '{"input":"a","input":"b"}', 'input', 'input'],
    ['spelled with an escape', '{"a":"x","\\u0061":1}', 'a', 'a'],
    ['after a string holding an escaped quote and a comma', '{"a":[{"x":1},{"x":2,"y":"\\"x\\",","x":3}]}', 'x', 'a[1].x'],
    ['after an escaped backslash at the end of a string', '{"s":"\\\\","s":1}', 's', 's'],
    ['the empty key', '{"k":{"a":1,"b":[1,2,{"":1,"":2}]}}', '', 'k.b[2].'],
    ['after a byte order mark', '\ufeff{"a":1,"a":2}', 'a', 'a'],
  ];
  for (const [name, text, key, path] of found) {
    it(`finds a key given twice ${name}`, () => {
      JSON.parse(text.replace(/^\ufeff/, '')); // the scan assumes valid JSON
      expect(duplicateKeyPath(text)).toEqual({ key, path });
    });
  }

  it('accepts the same key in sibling objects, list items and nested objects, and keys that only look alike', () => {
    for (const text of ['{"a":{"b":1},"c":{"b":2}}', '[{"a":1},{"a":1}]', '{"a":{"a":{"a":1}}}', '{"a":"\\"a\\":1,","A":1}', '"a,a"', '[]', '{}']) {
      expect(duplicateKeyPath(text), text).toBeUndefined();
    }
  });

  it('cuts a long path after 12 segments', () => {
    const text = `${'{"a":'.repeat(14)}{"x":1,"x":2}${'}'.repeat(14)}`;
    expect(duplicateKeyPath(text)).toEqual({ key: 'x', path: `${Array(12).fill('a').join('.')}…` });
  });
});
