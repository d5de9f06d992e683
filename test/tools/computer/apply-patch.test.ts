/**
 * apply_patch with the "*** Begin Patch" format: add, update (with @@ anchors, several hunks,
 * End of File), delete, move; all or nothing; errors naming the hunk.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, useComputerHome } from './support.js';

const h = useComputerHome();
const read = (p: string) => readFile(path.join(h.home, p), 'utf8');

const APP = ['function greet(name) {', '  return "hi " + name;', '}', '', 'function add(a, b) {', '  return a + b;', '}', ''].join('\n');

beforeAll(async () => {
  await mkdir(h.home, { recursive: true });
});

beforeEach(async () => {
  await writeFile(path.join(h.home, 'app.js'), APP);
  await writeFile(path.join(h.home, 'old.txt'), 'to be removed\n');
  await writeFile(path.join(h.home, 'notes.md'), 'a\nb\nc\n');
});

describe('apply_patch', () => {
  it('adds, updates (two hunks, one anchored), deletes and moves files in one patch', async () => {
    const patch = [
      '*** Begin Patch',
      '*** Add File: src/new.txt',
      '+hello',
      '+world',
      '*** Update File: app.js',
      '@@ function greet(name) {',
      '-  return "hi " + name;',
      '+  return "hello " + name;',
      ' }',
      '@@ function add(a, b) {',
      '-  return a + b;',
      '+  return Number(a) + Number(b);',
      ' }',
      '*** Delete File: old.txt',
      '*** Update File: notes.md',
      '*** Move to: docs/notes.md',
      ' a',
      '-b',
      '+B',
      ' c',
      '*** End Patch',
    ].join('\n');
    const r = await call(h.tools, 'apply_patch', { patch });
    expect(r.isError, r.output).toBe(false);
    expect(r.output).toMatch(/^Success\. Updated the following files:\nA src\/new\.txt\nM app\.js\nD old\.txt\nR notes\.md -> docs\/notes\.md/);
    expect(r.output).toContain('-  return "hi " + name;\n+  return "hello " + name;');
    expect(await read('src/new.txt')).toBe('hello\nworld\n');
    expect(await read('app.js')).toBe(APP.replace('"hi "', '"hello "').replace('return a + b', 'return Number(a) + Number(b)'));
    expect(existsSync(path.join(h.home, 'old.txt'))).toBe(false);
    expect(existsSync(path.join(h.home, 'notes.md'))).toBe(false);
    expect(await read('docs/notes.md')).toBe('a\nB\nc\n');
    expect(r.startedLabel).toBe('Applying a patch to 4 files');
    expect(r.completedLabel).toBe('Patched files (1 added, 1 updated, 1 deleted, 1 moved)');
  });

  it('labels a one-file patch by its path', async () => {
    const r = await call(h.tools, 'apply_patch', { patch: '*** Begin Patch\n*** Update File: notes.md\n@@\n-b\n+bee\n*** End Patch\n' });
    expect(r.startedLabel).toBe('Patching notes.md');
    expect(r.completedLabel).toBe('Patched files (1 updated)');
    expect(await read('notes.md')).toBe('a\nbee\nc\n');
  });

  it('leaves every file untouched when one hunk does not apply, and names that hunk', async () => {
    const patch = [
      '*** Begin Patch',
      '*** Add File: created.txt',
      '+should not appear',
      '*** Delete File: old.txt',
      '*** Update File: app.js',
      '@@ function greet(name) {',
      '-  return "hi " + name;',
      '+  return "hey " + name;',
      '@@ function add(a, b) {',
      '-  return a - b;',
      '+  return a * b;',
      '*** End Patch',
    ].join('\n');
    const r = await call(h.tools, 'apply_patch', { patch });
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(/^Error: .*app\.js: hunk 2 \(@@ function add\(a, b\) \{\) did not apply: these lines were not found/);
    expect(r.output).toContain('return a - b;');
    expect(r.output).toContain('Nothing was changed');
    expect(await read('app.js')).toBe(APP);
    expect(await read('old.txt')).toBe('to be removed\n');
    expect(existsSync(path.join(h.home, 'created.txt'))).toBe(false);
  });

  it('tolerates trailing-whitespace differences in context lines', async () => {
    const r = await call(h.tools, 'apply_patch', { patch: '*** Begin Patch\n*** Update File: notes.md\n a   \n-b\n+b2\n c\n*** End Patch' });
    expect(r.isError, r.output).toBe(false);
    expect(await read('notes.md')).toBe('a\nb2\nc\n');
  });

  it('matches an End of File hunk at the end of the file', async () => {
    await writeFile(path.join(h.home, 'rep.txt'), 'x\ny\nx\ny\n');
    const r = await call(h.tools, 'apply_patch', { patch: '*** Begin Patch\n*** Update File: rep.txt\n x\n-y\n+z\n*** End of File\n*** End Patch' });
    expect(r.isError, r.output).toBe(false);
    expect(await read('rep.txt')).toBe('x\ny\nx\nz\n');
  });

  it('keeps CRLF line endings and a BOM of an updated file', async () => {
    await writeFile(path.join(h.home, 'win.txt'), '\uFEFFone\r\ntwo\r\nthree\r\n');
    const r = await call(h.tools, 'apply_patch', { patch: '*** Begin Patch\n*** Update File: win.txt\n one\n-two\n+TWO\n three\n*** End Patch' });
    expect(r.isError, r.output).toBe(false);
    expect(await read('win.txt')).toBe('\uFEFFone\r\nTWO\r\nthree\r\n');
  });

  it('refuses an update or delete of a missing file, and a malformed patch, changing nothing', async () => {
    const upd = await call(h.tools, 'apply_patch', { patch: '*** Begin Patch\n*** Add File: a-new.txt\n+x\n*** Update File: ghost.txt\n-a\n+b\n*** End Patch' });
    expect(upd.output).toMatch(/^Error: .*Update File: ghost\.txt does not exist; nothing was changed/);
    expect(existsSync(path.join(h.home, 'a-new.txt'))).toBe(false);
    const del = await call(h.tools, 'apply_patch', { patch: '*** Begin Patch\n*** Delete File: ghost.txt\n*** End Patch' });
    expect(del.output).toMatch(/Delete File: ghost\.txt does not exist/);
    const bad = await call(h.tools, 'apply_patch', { patch: 'diff --git a/x b/x\n--- a/x\n+++ b/x' });
    expect(bad.output).toMatch(/^Error: .*invalid patch: the patch must start with "\*\*\* Begin Patch"/);
    const badLine = await call(h.tools, 'apply_patch', { patch: '*** Begin Patch\n*** Update File: notes.md\n@@\n a\n?b\n*** End Patch' });
    expect(badLine.output).toMatch(/patch line 5: hunk 1 of notes\.md: a line must start with " ", "-" or "\+"/);
    expect(await read('notes.md')).toBe('a\nb\nc\n');
  });

  it('accepts the heredoc wrapper models sometimes add', async () => {
    const r = await call(h.tools, 'apply_patch', { patch: "<<'EOF'\n*** Begin Patch\n*** Add File: here.txt\n+doc\n*** End Patch\nEOF\n" });
    expect(r.isError, r.output).toBe(false);
    expect(await read('here.txt')).toBe('doc\n');
  });
});
