/**
 * Huge files never build unbounded strings: read_file streams in bounded chunks and clips long
 * lines (a 600 MB single-line file used to throw a RangeError inside a readline stream handler and
 * kill the service); edit_file / apply_patch refuse files over MAX_WHOLE_FILE_BYTES.
 */
import { open, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyWorkerAgentTool } from '../../../src/runtime/tool.js';
import { MAX_WHOLE_FILE_BYTES } from '../../../src/tools/computer/home-fs.js';
import { readLineWindow } from '../../../src/tools/computer/read-lines.js';
import { call, computerTools, tempDir, turnContext } from './support.js';

let cleanup: () => Promise<void>;
let tools: AnyWorkerAgentTool[];
let home: string;
let dir: string;

beforeAll(async () => {
  const t = await tempDir('huge-files-');
  cleanup = t.cleanup;
  dir = t.dir;
  const ctx = turnContext(t.dir);
  home = ctx.agentHome;
  ({ tools } = await computerTools(ctx));
  await call(tools, 'ls', {});
});
afterAll(() => cleanup());

/** A sparse file: `head` text bytes, then zeros up to `size` bytes, no newline at all. */
async function sparseOneLine(name: string, head: string, size: number): Promise<string> {
  const file = path.join(home, name);
  await writeFile(file, head);
  await truncate(file, size);
  return file;
}

describe('read_file on huge files', () => {
  it('clips a 600 MB single line (longer than V8 strings can be) instead of crashing the service', async () => {
    await sparseOneLine('one-line.txt', 'a'.repeat(10_000), 600 * 1024 * 1024);
    const r = await call(tools, 'read_file', { path: 'one-line.txt' });
    expect(r.isError).toBe(false);
    const [first, footer] = r.output.split('\n');
    expect(first).toBe(`     1\t${'a'.repeat(2000)}… [line clipped: ${600 * 1024 * 1024} characters]`);
    expect(footer).toBe('[lines 1-1 of 1; end of file]');
    const past = await call(tools, 'read_file', { path: 'one-line.txt', offset: 2 });
    expect(past.output).toMatch(/^Error: .*offset 2 is past the end of one-line\.txt \(1 line\)/);
  }, 60_000);

  it('splits lines across chunk boundaries, drops CR before LF and a leading BOM, counts a last line without newline', async () => {
    const file = path.join(dir, 'chunks.txt');
    await writeFile(file, `\uFEFFalpha\r\nbeta\n\n${'x'.repeat(30)}\r\nlast`);
    const h = await open(file, 'r');
    try {
      for (const chunkBytes of [1, 3, 7, 1024]) {
        const w = await readLineWindow(h, { offset: 1, limit: 10, maxLineChars: 10, chunkBytes });
        expect(w.total).toBe(5);
        expect(w.lines).toEqual([
          { n: 1, text: 'alpha', chars: 5 },
          { n: 2, text: 'beta', chars: 4 },
          { n: 3, text: '', chars: 0 },
          { n: 4, text: 'x'.repeat(10), chars: 30 },
          { n: 5, text: 'last', chars: 4 },
        ]);
        const mid = await readLineWindow(h, { offset: 2, limit: 2, maxLineChars: 10, chunkBytes });
        expect(mid).toEqual({ total: 5, complete: true, lines: [{ n: 2, text: 'beta', chars: 4 }, { n: 3, text: '', chars: 0 }] });
      }
    } finally {
      await h.close();
    }
  });

  it('stops reading after maxScanBytes and says the count is a lower bound', async () => {
    const file = path.join(dir, 'endless.txt');
    await writeFile(file, `one\ntwo\n${'z'.repeat(100)}`);
    const h = await open(file, 'r');
    try {
      const w = await readLineWindow(h, { offset: 1, limit: 10, maxLineChars: 5, chunkBytes: 4, maxScanBytes: 20 });
      expect(w.complete).toBe(false);
      expect(w.total).toBe(3);
      expect(w.lines[2]).toEqual({ n: 3, text: 'zzzzz', chars: 12, atLeast: true });
      const all = await readLineWindow(h, { offset: 1, limit: 10, maxLineChars: 5, chunkBytes: 4, maxScanBytes: 200 });
      expect(all.complete).toBe(true);
      expect(all.lines[2]).toEqual({ n: 3, text: 'zzzzz', chars: 100 });
    } finally {
      await h.close();
    }
  });
});

describe('whole-file tools refuse files over the size limit', () => {
  it('edit_file and apply_patch refuse a file over MAX_WHOLE_FILE_BYTES with a clear error and change nothing', async () => {
    const file = await sparseOneLine('big.txt', 'hello\n', MAX_WHOLE_FILE_BYTES + 1);
    const e = await call(tools, 'edit_file', { path: 'big.txt', old_string: 'hello', new_string: 'bye' });
    expect(e.output).toMatch(/^Error: .*big\.txt is too large \(10485761 bytes; the limit for this tool is 10485760 bytes\)/);
    const p = await call(tools, 'apply_patch', { patch: '*** Begin Patch\n*** Update File: big.txt\n@@\n-hello\n+bye\n*** End Patch' });
    expect(p.output).toMatch(/^Error: .*big\.txt is too large .*nothing was changed/);
    const h = await open(file, 'r');
    const head = Buffer.alloc(6);
    await h.read(head, 0, 6, 0);
    await h.close();
    expect(head.toString()).toBe('hello\n');
    const g = await call(tools, 'grep', { pattern: 'hello', path: 'big.txt' });
    expect(g.output).toMatch(/1 files over 10 MiB skipped/);
  });
});
