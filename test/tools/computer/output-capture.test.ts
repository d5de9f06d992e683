/**
 * OutputCapture: decoding across chunk boundaries, ANSI stripping, head/tail cap, the log file
 * and its byte limit.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutputCapture } from '../../../src/tools/computer/sandbox/output-capture.js';
import { tempDir } from './support.js';

let home: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  const t = await tempDir('capture-');
  cleanup = t.cleanup;
  home = path.join(t.dir, 'home');
  await mkdir(home);
});
afterAll(() => cleanup());

describe('OutputCapture', () => {
  it('decodes a UTF-8 character and an ANSI escape split across chunks', async () => {
    const c = new OutputCapture();
    const bytes = Buffer.from('é \x1b[31mred\x1b[0m done', 'utf8');
    // split inside "é" (2 bytes) and inside the first escape sequence
    c.write(bytes.subarray(0, 1));
    c.write(bytes.subarray(1, 5));
    c.write(bytes.subarray(5));
    const out = await c.finish(home, 'unused');
    expect(out.text).toBe('é red done');
    expect(out.omittedChars).toBe(0);
    expect(out.logPath).toBeUndefined();
  });

  it('keeps the first 40 % and the last 60 % of the allowed characters with a marker', async () => {
    const c = new OutputCapture({ maxChars: 100 });
    const text = Array.from({ length: 100 }, (_, i) => String(i).padStart(3, '0')).join('');
    for (let i = 0; i < text.length; i += 7) c.write(Buffer.from(text.slice(i, i + 7)));
    const out = await c.finish(home, 'cap-test');
    expect(out.totalChars).toBe(300);
    expect(out.omittedChars).toBe(200);
    expect(out.text.startsWith(text.slice(0, 40))).toBe(true);
    expect(out.text.endsWith(text.slice(-60))).toBe(true);
    expect(out.text).toContain('[... 200 characters omitted (output was 300 characters); full output saved to .command-logs/cap-test.log');
    expect(await readFile(path.join(home, '.command-logs/cap-test.log'), 'utf8')).toBe(text);
  });

  it('stops the log at its byte limit and says so', async () => {
    const c = new OutputCapture({ maxChars: 10, maxLogBytes: 1000 });
    for (let i = 0; i < 50; i++) c.write(Buffer.from('x'.repeat(100)));
    const out = await c.finish(home, 'limited');
    expect(out.logTruncated).toBe(true);
    expect(out.text).toContain('(first 1000 bytes only)');
    const log = await readFile(path.join(home, '.command-logs/limited.log'), 'utf8');
    expect(log.startsWith('x'.repeat(100))).toBe(true);
    expect(log).toContain('[log truncated: output exceeded 1000 bytes; the rest was dropped]');
    expect(log.length).toBeLessThan(1200);
    expect(out.totalChars).toBe(5000);
  });
});
