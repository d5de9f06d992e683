/**
 * find refuses glob patterns whose picomatch regular expression could backtrack for seconds or
 * hours (the matching is synchronous, so no timeout could stop it); ordinary patterns still work.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertSafeGlob } from '../../../src/tools/computer/tools/glob-pattern.js';
import { call, useComputerHome } from './support.js';

const h = useComputerHome();

beforeAll(async () => {
  await mkdir(path.join(h.home, 'g/src'), { recursive: true });
  // A 60-character name that makes `*a*a*a*a*a*a*b` backtrack for ~5 s if it ever reached picomatch.
  await writeFile(path.join(h.home, 'g', 'a'.repeat(60)), 'x');
  for (const f of ['src/a.ts', 'src/b.js', 'src/c.md', 'src/my-test-file.txt', 'top.ts']) await writeFile(path.join(h.home, 'g', f), 'x');
});

describe('find glob limits', () => {
  it('refuses a pattern with many stars in one segment quickly, explaining the limit', async () => {
    const started = performance.now();
    const r = await call(h.tools, 'find', { pattern: '*a*a*a*a*a*a*b', path: 'g' });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(/^Error: .*refused: the path segment "\*a\*a\*a\*a\*a\*a\*b" has 7 "\*" wildcards; at most 3 per segment/);
  });

  it('refuses over-long patterns, extglobs, many globstars and huge brace ranges', async () => {
    for (const [pattern, msg] of [
      ['a'.repeat(300), /300 characters; at most 256/],
      ['+(a*)b', /extglobs/],
      ['**/*a*/**/*a*/**/b', /"\*\*" segments; at most 2/],
      ['**/*a*/*b*/c', /wildcards in total; at most 4/],
      ['{1..100000}', /spans 100000 values/],
      ['{a,b}'.repeat(9), /9 brace groups/],
    ] as const) {
      const r = await call(h.tools, 'find', { pattern, path: 'g' });
      expect(r.isError, pattern).toBe(true);
      expect(r.output, pattern).toMatch(msg);
    }
  });

  it('still matches ordinary patterns', async () => {
    expect((await call(h.tools, 'find', { pattern: '**/*.ts', path: 'g' })).output).toBe('g/src/a.ts\ng/top.ts');
    expect((await call(h.tools, 'find', { pattern: 'src/*.{js,ts}', path: 'g' })).output).toBe('g/src/a.ts\ng/src/b.js');
    expect((await call(h.tools, 'find', { pattern: '**/*test*', path: 'g' })).output).toBe('g/src/my-test-file.txt');
    expect((await call(h.tools, 'find', { pattern: '*test*', path: 'g/src' })).output).toBe('g/src/my-test-file.txt');
    expect(() => assertSafeGlob('src/**/test/**/*.spec.{js,ts}')).not.toThrow();
    expect(() => assertSafeGlob('*a*b*')).not.toThrow();
  });
});
