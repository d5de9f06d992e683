/**
 * read_file, write_file, edit_file, ls, find, grep on a real home folder.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, useComputerHome } from './support.js';

const h = useComputerHome();

describe('write_file and read_file', () => {
  it('round-trips a file, creating parent folders, with numbered lines and a footer', async () => {
    const w = await call(h.tools, 'write_file', { path: 'notes/deep/a.txt', content: 'one\ntwo\nthree\n' });
    expect(w.isError).toBe(false);
    expect(w.startedLabel).toBe('Writing notes/deep/a.txt');
    expect(w.completedLabel).toBe('Created notes/deep/a.txt (3 lines)');
    expect(await readFile(path.join(h.home, 'notes/deep/a.txt'), 'utf8')).toBe('one\ntwo\nthree\n');

    const r = await call(h.tools, 'read_file', { path: 'notes/deep/a.txt' });
    expect(r.output).toBe('     1\tone\n     2\ttwo\n     3\tthree\n[lines 1-3 of 3; end of file]');
    expect(r.startedLabel).toBe('Reading notes/deep/a.txt');
    expect(r.completedLabel).toBe('Read notes/deep/a.txt (lines 1-3 of 3)');

    const again = await call(h.tools, 'write_file', { path: '~/notes/deep/a.txt', content: 'replaced' });
    expect(again.completedLabel).toBe('Wrote ~/notes/deep/a.txt (1 line)');
    expect(await readFile(path.join(h.home, 'notes/deep/a.txt'), 'utf8')).toBe('replaced');
  });

  it('pages with offset and limit and says where to continue', async () => {
    const lines = Array.from({ length: 812 }, (_, i) => `line ${i + 1}`).join('\n');
    await writeFile(path.join(h.home, 'long.txt'), lines);
    const first = await call(h.tools, 'read_file', { path: 'long.txt', limit: 200 });
    expect(first.output.split('\n')[0]).toBe('     1\tline 1');
    expect(first.output).toMatch(/\[lines 1-200 of 812; continue with offset=201\]$/);
    expect(first.completedLabel).toBe('Read long.txt (lines 1-200 of 812)');
    const def = await call(h.tools, 'read_file', { path: 'long.txt' });
    expect(def.output).toMatch(/\[lines 1-500 of 812; continue with offset=501\]$/);
    const last = await call(h.tools, 'read_file', { path: 'long.txt', offset: 801 });
    expect(last.output.split('\n')[0]).toBe('   801\tline 801');
    expect(last.output).toMatch(/\[lines 801-812 of 812; end of file\]$/);
    const past = await call(h.tools, 'read_file', { path: 'long.txt', offset: 900 });
    expect(past.output).toMatch(/^Error: .*offset 900 is past the end of long\.txt \(812 lines\)/);
    const tooMany = await call(h.tools, 'read_file', { path: 'long.txt', limit: 5000 });
    expect(tooMany.isError).toBe(true);
    expect(tooMany.output).toMatch(/limit/);
  });

  it('clips very long lines', async () => {
    await writeFile(path.join(h.home, 'wide.txt'), `${'y'.repeat(5000)}\nshort\n`);
    const r = await call(h.tools, 'read_file', { path: 'wide.txt' });
    expect(r.output).toContain('[line clipped: 5000 characters]');
    expect(r.output.length).toBeLessThan(2200);
  });

  it('reports a missing file as a normal "not found" result', async () => {
    const r = await call(h.tools, 'read_file', { path: 'nope.txt' });
    expect(r.isError).toBe(false);
    expect(r.output).toMatch(/^not found: nope\.txt/);
    expect(r.completedLabel).toBe('Could not find nope.txt');
  });

  it('refuses a binary file with a clear message', async () => {
    await writeFile(path.join(h.home, 'image.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0xff]));
    const r = await call(h.tools, 'read_file', { path: 'image.bin' });
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(/^Error: .*image\.bin is a binary file \(8 bytes\)/);
    const e = await call(h.tools, 'edit_file', { path: 'image.bin', old_string: 'P', new_string: 'Q' });
    expect(e.output).toMatch(/binary file/);
  });

  it('refuses to read a folder', async () => {
    const r = await call(h.tools, 'read_file', { path: 'notes' });
    expect(r.output).toMatch(/^Error: .*notes is a folder/);
  });
});

describe('edit_file', () => {
  it('replaces a unique string and returns a unified diff', async () => {
    await writeFile(path.join(h.home, 'app.ts'), 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
    const r = await call(h.tools, 'edit_file', { path: 'app.ts', old_string: 'const b = 2;', new_string: 'const b = 20;\nconst bb = 21;' });
    expect(r.isError).toBe(false);
    expect(r.output).toContain('--- a/app.ts\n+++ b/app.ts\n@@ -1,3 +1,4 @@\n const a = 1;\n-const b = 2;\n+const b = 20;\n+const bb = 21;\n const c = 3;');
    expect(r.startedLabel).toBe('Editing app.ts');
    expect(r.completedLabel).toBe('Edited app.ts (+2 -1)');
    expect(await readFile(path.join(h.home, 'app.ts'), 'utf8')).toBe('const a = 1;\nconst b = 20;\nconst bb = 21;\nconst c = 3;\n');
  });

  it('says when old_string is missing, and when it is ambiguous without replace_all', async () => {
    await writeFile(path.join(h.home, 'dup.txt'), 'x = 1\nx = 1\n');
    const none = await call(h.tools, 'edit_file', { path: 'dup.txt', old_string: 'y = 2', new_string: 'z' });
    expect(none.output).toMatch(/^Error: .*old_string was not found in dup\.txt/);
    const many = await call(h.tools, 'edit_file', { path: 'dup.txt', old_string: 'x = 1', new_string: 'x = 2' });
    expect(many.output).toMatch(/^Error: .*old_string occurs 2 times in dup\.txt.*replace_all/);
    expect(await readFile(path.join(h.home, 'dup.txt'), 'utf8')).toBe('x = 1\nx = 1\n');
    const all = await call(h.tools, 'edit_file', { path: 'dup.txt', old_string: 'x = 1', new_string: 'x = 2', replace_all: true });
    expect(all.isError).toBe(false);
    expect(await readFile(path.join(h.home, 'dup.txt'), 'utf8')).toBe('x = 2\nx = 2\n');
  });

  it('keeps a CRLF file CRLF and keeps its BOM', async () => {
    const file = path.join(h.home, 'win.txt');
    await writeFile(file, '\uFEFFalpha\r\nbeta\r\ngamma\r\n');
    const r = await call(h.tools, 'edit_file', { path: 'win.txt', old_string: 'alpha\nbeta', new_string: 'alpha\nBETA\nbeta2' });
    expect(r.isError).toBe(false);
    expect(await readFile(file, 'utf8')).toBe('\uFEFFalpha\r\nBETA\r\nbeta2\r\ngamma\r\n');
    expect(r.output).toContain('-beta\n+BETA\n+beta2');
  });

  it('refuses a missing file and an identical replacement', async () => {
    expect((await call(h.tools, 'edit_file', { path: 'missing.txt', old_string: 'a', new_string: 'b' })).output).toMatch(/does not exist/);
    expect((await call(h.tools, 'edit_file', { path: 'app.ts', old_string: 'a', new_string: 'a' })).output).toMatch(/identical/);
  });
});

describe('ls, find and grep', () => {
  beforeAll(async () => {
    await mkdir(path.join(h.home, 'proj/src/lib'), { recursive: true });
    await mkdir(path.join(h.home, 'proj/node_modules/dep'), { recursive: true });
    await writeFile(path.join(h.home, 'proj/src/main.ts'), 'import { helper } from "./lib/helper";\nconsole.log(helper(1));\n// TODO: more\n');
    await writeFile(path.join(h.home, 'proj/src/lib/helper.ts'), 'export function helper(n: number) {\n  return n + 1; // TODO tidy\n}\n');
    await writeFile(path.join(h.home, 'proj/README.md'), '# proj\nA (tiny) project.\n');
    await writeFile(path.join(h.home, 'proj/node_modules/dep/index.ts'), 'export const TODO = 1;\n');
    await writeFile(path.join(h.home, 'proj/blob.bin'), Buffer.from([0, 1, 2, 84, 79, 68, 79]));
  });

  it('ls lists folders with a slash and files with sizes', async () => {
    const r = await call(h.tools, 'ls', { path: 'proj' });
    expect(r.output).toBe('proj: 4 entries\nREADME.md  (25 B)\nblob.bin  (7 B)\nnode_modules/\nsrc/');
    expect(r.startedLabel).toBe('Listing proj');
    expect(r.completedLabel).toBe('Listed proj (4 entries)');
    const one = await call(h.tools, 'ls', { path: 'proj/src/lib' });
    expect(one.output).toBe('proj/src/lib: 1 entry\nhelper.ts  (67 B)');
    expect(one.completedLabel).toBe('Listed proj/src/lib (1 entry)');
    const root = await call(h.tools, 'ls', {});
    expect(root.startedLabel).toBe('Listing home');
    expect(root.output).toContain('proj/');
  });

  it('find matches globs relative to the home and skips node_modules', async () => {
    const r = await call(h.tools, 'find', { pattern: '**/*.ts', path: 'proj' });
    expect(r.output).toBe('proj/src/lib/helper.ts\nproj/src/main.ts');
    expect(r.completedLabel).toBe('Found 2 files matching **/*.ts');
    const nm = await call(h.tools, 'find', { pattern: 'node_modules/**/*.ts', path: 'proj' });
    expect(nm.output).toBe('proj/node_modules/dep/index.ts');
    const limited = await call(h.tools, 'find', { pattern: '**/*', path: 'proj', limit: 1 });
    expect(limited.output).toMatch(/more matches not shown/);
    const escape = await call(h.tools, 'find', { pattern: '../**' });
    expect(escape.output).toMatch(/^Error: .*must not contain "\.\."/);
  });

  it('grep finds regex matches as path:line:text, skipping binary files and node_modules', async () => {
    const r = await call(h.tools, 'grep', { pattern: 'TODO\\b', path: 'proj' });
    expect(r.output).toBe('proj/src/lib/helper.ts:2:  return n + 1; // TODO tidy\nproj/src/main.ts:3:// TODO: more\n[1 binary file skipped]');
    expect(r.startedLabel).toBe('Searching for TODO\\b');
    expect(r.completedLabel).toBe('Found 2 matches for TODO\\b in 2 files');
  });

  it('grep shows context lines and separates groups', async () => {
    const r = await call(h.tools, 'grep', { pattern: 'helper\\(', path: 'proj/src', context: 1 });
    expect(r.output).toBe(
      [
        'proj/src/lib/helper.ts:1:export function helper(n: number) {',
        'proj/src/lib/helper.ts-2-  return n + 1; // TODO tidy',
        '--',
        'proj/src/main.ts-1-import { helper } from "./lib/helper";',
        'proj/src/main.ts:2:console.log(helper(1));',
        'proj/src/main.ts-3-// TODO: more',
      ].join('\n'),
    );
  });

  it('grep searches literal text and reports a bad regex clearly', async () => {
    const lit = await call(h.tools, 'grep', { pattern: '(tiny)', literal: true, path: 'proj' });
    expect(lit.output).toBe('proj/README.md:2:A (tiny) project.\n[1 binary file skipped]');
    const bad = await call(h.tools, 'grep', { pattern: '(unclosed', path: 'proj' });
    expect(bad.isError).toBe(true);
    expect(bad.output).toMatch(/invalid regular expression/);
  });

  it('grep stays linear on a pattern that makes backtracking engines explode', async () => {
    await writeFile(path.join(h.home, 'redos.txt'), `${'a'.repeat(5000)}!\n`);
    const t0 = Date.now();
    const r = await call(h.tools, 'grep', { pattern: '(a+)+$', path: 'redos.txt' });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(r.isError).toBe(false);
  });

  it('grep stops at the match limit and says so', async () => {
    await writeFile(path.join(h.home, 'many.txt'), Array.from({ length: 50 }, () => 'hit').join('\n'));
    const r = await call(h.tools, 'grep', { pattern: 'hit', path: 'many.txt', limit: 5 });
    expect(r.output.split('\n').filter((l) => l.startsWith('many.txt:'))).toHaveLength(5);
    expect(r.output).toMatch(/search stopped early: limit of 5 matches reached/);
  });
});
