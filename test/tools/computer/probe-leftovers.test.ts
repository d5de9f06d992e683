/**
 * The bubblewrap start-up probe's temporary directory (`bwrap-probe-<pid namespace>-<pid>-…`) left
 * behind by a service SIGKILLed during the probe is removed by the next probe — only when the
 * process that made it is gone: a live process's directory (another instance probing now), one of
 * another pid namespace and one named otherwise stay. Real directories, real processes (the probe
 * runs in a child process killed with SIGKILL; a script stands in for a slow bwrap).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeStaleProbeDirs } from '../../../src/tools/computer/sandbox/probe.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const ns = /\[(\d+)\]/.exec(fs.readlinkSync('/proc/self/ns/pid'))![1];
const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

function tempRoot(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-leftovers-'));
  cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
  return root;
}

/** A pid that existed and is gone now. */
function deadPid(): number {
  const r = spawnSync('true');
  return r.pid!;
}

/** The bwrap-probe directories in `root`. */
const probeDirs = (root: string) => fs.readdirSync(root).filter((n) => n.startsWith('bwrap-probe-')).sort();

/** A node process (tsx loader) in `root` as its temp directory that probes with `bwrap`. */
function probeIn(root: string, bwrap: string): ChildProcess {
  const code = `const m = await import(${JSON.stringify(path.join(ROOT, 'src/tools/computer/sandbox/probe.ts'))}); console.log(JSON.stringify(await m.probeBwrap(${JSON.stringify(bwrap)})));`;
  return spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, env: { ...process.env, TMPDIR: root }, stdio: ['ignore', 'pipe', 'pipe'] });
}

function script(root: string, name: string, body: string): string {
  const p = path.join(root, name);
  fs.writeFileSync(p, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return p;
}

describe('stale bwrap probe directories', () => {
  it('removes those of a gone process of this pid namespace, and leaves the others', async () => {
    const root = tempRoot();
    const live = spawn('sleep', ['30']);
    cleanup.push(() => live.kill('SIGKILL'));
    const names = {
      gone: `bwrap-probe-${ns}-${deadPid()}-aB3dE5`,
      live: `bwrap-probe-${ns}-${live.pid}-fG7hI9`,
      mine: `bwrap-probe-${ns}-${process.pid}-jK1lM2`,
      otherNamespace: `bwrap-probe-1${ns}-${deadPid()}-nO4pQ6`,
      olderBuild: 'bwrap-probe-rS8tU0',
      unrelated: `other-${ns}-${deadPid()}-x`,
    };
    for (const n of Object.values(names)) fs.mkdirSync(path.join(root, n));
    fs.writeFileSync(path.join(root, names.gone, 'left.txt'), 'x');

    expect(await removeStaleProbeDirs(root)).toEqual([names.gone]);
    expect(fs.readdirSync(root).sort()).toEqual(Object.values(names).filter((n) => n !== names.gone).sort());
    expect(await removeStaleProbeDirs(path.join(root, 'missing'))).toEqual([]); // never throws
  });

  it('a probe SIGKILLed midway leaves its directory; the next probe, in a new process, removes it', async () => {
    const root = tempRoot();
    const slow = script(root, 'slow-bwrap', 'sleep 5');
    const fast = script(root, 'fast-bwrap', 'exit 0');
    const killed = probeIn(root, slow);
    cleanup.push(() => killed.kill('SIGKILL'));
    const end = Date.now() + 20_000;
    while (probeDirs(root).length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    const left = probeDirs(root);
    expect(left).toEqual([expect.stringMatching(new RegExp(`^bwrap-probe-${ns}-${killed.pid}-`))]);
    killed.kill('SIGKILL');
    await new Promise((r) => killed.once('exit', r));
    expect(probeDirs(root)).toEqual(left);

    const next = probeIn(root, fast);
    let out = '';
    next.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    next.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    expect(await new Promise((r) => next.once('exit', r))).toBe(0);
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toMatchObject({ ok: true });
    expect(probeDirs(root)).toEqual([]);
  }, 60_000);
});
