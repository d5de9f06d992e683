/**
 * `npm run demo` (scripts/demo.ts): one real turn against the bundled scripted model, printing
 * labels and the answer — and an `unavailable` line only for a family the demo asked for.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../e2e/support/child.js';

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
