/**
 * `npm run demo` (scripts/demo.ts): one real turn against the bundled scripted model, printing
 * labels and the answer — and an `unavailable` line only for a family the demo asked for; with
 * `--serve`, the service kept up against an echoing scripted model.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { freePort, ROOT } from '../e2e/support/child.js';

it('prints the labels and the answer, and no unavailable line for families it did not ask for', { timeout: 90_000 }, async () => {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/demo.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (c) => (out += c));
  proc.stderr.on('data', (c) => (out += c));
  const code = await new Promise<number | null>((resolve) => proc.on('exit', resolve));
  expect(code, out).toBe(0);
  expect(out).toMatch(/▶ turn \S+ started — tools: .*todo/);
  expect(out).toMatch(/^answer: I planned the work with todo/m);
  const unavailable = [...out.matchAll(/family (\S+) unavailable/g)].map((m) => m[1]);
  expect(unavailable.filter((f) => f !== 'todo' && f !== 'computer')).toEqual([]);
  expect(out).not.toContain('not enabled for this turn');
});

it('--serve keeps the service up on PORT against an echoing scripted model until SIGTERM, then removes its data', { timeout: 90_000 }, async () => {
  const port = await freePort();
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/demo.ts'), '--serve'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (c) => (out += c));
  proc.stderr.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', resolve));
  try {
    for (let i = 0; i < 300 && !out.includes('Ctrl-C stops it.'); i++) await new Promise((r) => setTimeout(r, 200));
    expect(out).toContain(`service: http://127.0.0.1:${port}`);
    const base = `http://127.0.0.1:${port}`;
    for (const input of ['hello', 'and again']) {
      const res = await fetch(`${base}/v1/turns?wait=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
      const turn = await res.json();
      expect(res.status).toBe(200);
      expect(turn).toMatchObject({ status: 'completed', output_text: `(scripted model, no LLM) You said: ${input}` });
    }
  } finally {
    proc.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
  const dataDir = /data: (\S+) \(removed on exit\)/.exec(out)?.[1];
  expect(dataDir).toBeTruthy();
  expect(existsSync(dataDir!)).toBe(false);
});
