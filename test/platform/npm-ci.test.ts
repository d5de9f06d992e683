/**
 * scripts/npm-ci, the one `npm ci` of scripts/setup and .ci/run: run for real with bash, in a
 * throw-away folder, with an `npm` on PATH that records its calls (a real `npm ci` would need the
 * registry and replace this checkout's modules).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ROOT } from '../e2e/support/child.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function setup(): { run: (...args: string[]) => string; calls: () => string[] } {
  dir = mkdtempSync(path.join(os.tmpdir(), 'npm-ci-'));
  mkdirSync(path.join(dir, 'scripts'));
  mkdirSync(path.join(dir, 'bin'));
  copyFileSync(path.join(ROOT, 'scripts/npm-ci'), path.join(dir, 'scripts/npm-ci'));
  writeFileSync(path.join(dir, 'package-lock.json'), '{"lockfileVersion": 3}\n');
  // `npm ci` removes and recreates node_modules; this one records its arguments and does the same.
  writeFileSync(path.join(dir, 'bin/npm'), '#!/usr/bin/env bash\necho "$*" >>calls.log\nrm -rf node_modules && mkdir node_modules\n');
  chmodSync(path.join(dir, 'bin/npm'), 0o755);
  const env = { ...process.env, PATH: `${path.join(dir, 'bin')}:${process.env.PATH}` };
  return {
    run: (...args) => execFileSync('bash', ['scripts/npm-ci', ...args], { cwd: dir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
    calls: () => {
      try {
        return readFileSync(path.join(dir, 'calls.log'), 'utf8').trim().split('\n');
      } catch {
        return [];
      }
    },
  };
}

const record = (lock: string) => `${process.version} ${createHash('sha256').update(lock).digest('hex')}\n`;

it('installs and records the Node version and lock file; --if-needed then installs only when either changed', () => {
  const { run, calls } = setup();
  run('--if-needed');
  expect(calls()).toEqual(['ci --no-audit --no-fund']);
  expect(readFileSync(path.join(dir, 'node_modules/.turn-service-setup'), 'utf8')).toBe(record('{"lockfileVersion": 3}\n'));
  run('--if-needed');
  expect(calls()).toHaveLength(1);
  writeFileSync(path.join(dir, 'package-lock.json'), '{"lockfileVersion": 3, "x": 1}\n');
  run('--if-needed');
  expect(calls()).toHaveLength(2);
  writeFileSync(path.join(dir, 'node_modules/.turn-service-setup'), 'v20.0.0 0000\n');
  run('--if-needed');
  expect(calls()).toHaveLength(3);
});

it('always installs without --if-needed (CI), and records it, so setup after CI installs nothing', () => {
  const { run, calls } = setup();
  run();
  run();
  expect(calls()).toHaveLength(2);
  run('--if-needed');
  expect(calls()).toHaveLength(2);
});

it('is the npm ci of both scripts/setup and .ci/run', () => {
  const setupScript = readFileSync(path.join(ROOT, 'scripts/setup'), 'utf8');
  const ciScript = readFileSync(path.join(ROOT, '.ci/run'), 'utf8');
  expect(setupScript).toContain('bash scripts/npm-ci --if-needed');
  expect(ciScript).toContain('bash scripts/npm-ci');
  for (const script of [setupScript, ciScript]) expect(script.split('\n').filter((l) => /^\s*npm ci\b/.test(l))).toEqual([]);
});

it('refuses to install through a node_modules that is a symbolic link (npm ci would empty the folder it points to), saying to remove the link', () => {
  const { run, calls } = setup();
  const elsewhere = path.join(dir, 'other-checkout-modules');
  mkdirSync(elsewhere);
  writeFileSync(path.join(elsewhere, 'kept'), 'x');
  symlinkSync(elsewhere, path.join(dir, 'node_modules'));
  let err: { status?: number; stderr?: string } = {};
  try {
    run('--if-needed');
  } catch (e) {
    err = e as typeof err;
  }
  expect(err.status).toBe(1);
  expect(err.stderr).toBe(`setup: node_modules is a symbolic link (to ${elsewhere}): npm ci would empty the folder it points to; remove the link (rm node_modules) and run this again to install this checkout's own\n`);
  expect(calls()).toEqual([]);
  expect(existsSync(path.join(elsewhere, 'kept'))).toBe(true);
});
