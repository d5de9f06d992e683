/**
 * `npm start` (scripts/start.mjs) only starts the built service: it never compiles, and a missing
 * or stale build ends with one line saying to run `npm run build`. Every npm script that runs the
 * project's code on Node checks the Node version first (scripts/node-version.mjs).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ROOT } from '../e2e/support/child.js';

let dir: string;

/** A checkout-shaped folder holding a copy of the real start script and one source file. */
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'start-script-'));
  mkdirSync(path.join(dir, 'scripts'));
  copyFileSync(path.join(ROOT, 'scripts/start.mjs'), path.join(dir, 'scripts/start.mjs'));
  copyFileSync(path.join(ROOT, 'scripts/node-version.mjs'), path.join(dir, 'scripts/node-version.mjs'));
  mkdirSync(path.join(dir, 'src'));
  writeFileSync(path.join(dir, 'src/main.ts'), 'export {};\n');
  setTime(path.join(dir, 'src/main.ts'), 1_000);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function setTime(file: string, seconds: number): void {
  utimesSync(file, seconds, seconds);
}

/** Writes the three build outputs the script checks; main() prints one line. */
function build(seconds: number): void {
  mkdirSync(path.join(dir, 'dist/src'), { recursive: true });
  mkdirSync(path.join(dir, 'dist/console'), { recursive: true });
  const main = path.join(dir, 'dist/src/main.js');
  writeFileSync(main, 'export async function main() { console.log("service main ran"); }\n');
  writeFileSync(path.join(dir, 'dist/console/app.js'), '');
  writeFileSync(path.join(dir, 'dist/console/index.html'), '');
  for (const f of ['dist/src/main.js', 'dist/console/app.js', 'dist/console/index.html']) setTime(path.join(dir, f), seconds);
}

function start(...args: string[]) {
  return spawnSync(process.execPath, [path.join(dir, 'scripts/start.mjs'), ...args], { encoding: 'utf8' });
}

/** The start script on a Node that reports `version` (process.versions replaced before it runs). */
function startOnNode(version: string) {
  const fake = `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '${version}' } }); Object.defineProperty(process, 'version', { value: 'v${version}' });`;
  return spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(fake)}`, path.join(dir, 'scripts/start.mjs')], { encoding: 'utf8' });
}

it('refuses to run on a Node older than 24 with one line saying how to get Node 24, before anything crashes', () => {
  build(2_000);
  const run = startOnNode('20.20.2');
  expect(run.status).toBe(2);
  expect(run.stdout).toBe(''); // the service's main never ran
  expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^refusing to start: this service needs Node\.js 24; this is v20\.20\.2 .*bash scripts\/setup/)]);
  expect(startOnNode('24.0.0').stdout.trim()).toBe('service main ran');
});

it('refuses to start without a build, with one line that says to run npm run build', () => {
  const run = start();
  expect(run.status).toBe(1);
  expect(run.stdout).toBe('');
  const lines = run.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/no build in dist\/.*run `npm run build`/);
});

it('refuses to start a build older than its sources, with one line that says to run npm run build', () => {
  build(500);
  const run = start();
  expect(run.status).toBe(1);
  expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/older than the sources: run `npm run build`/)]);
});

it('starts a current build without compiling anything', () => {
  build(2_000);
  const run = start();
  expect(run.stderr).toBe('');
  expect(run.stdout.trim()).toBe('service main ran');
  expect(run.status).toBe(0);
});

it('answers --check with the exit code only', () => {
  expect(start('--check').status).toBe(1);
  build(2_000);
  expect(start('--check').status).toBe(0);
  setTime(path.join(dir, 'src/main.ts'), 3_000);
  expect(start('--check').status).toBe(1);
});

it('every npm script that runs the project on Node (dev, test, demo, the benchmarks) checks the Node version first', () => {
  const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const runners = Object.entries(scripts).filter(([, command]) => /\b(tsx|vitest)\b/.test(command));
  expect(runners.map(([name]) => name)).toEqual(expect.arrayContaining(['dev', 'test', 'demo', 'bench', 'bench:service', 'bench:fanout']));
  for (const [name, command] of runners) expect(command, name).toMatch(/^node scripts\/node-version\.mjs && /);
  expect(scripts.start).toBe('node scripts/start.mjs'); // it runs the check itself
});
