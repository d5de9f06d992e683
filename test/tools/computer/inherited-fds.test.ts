/**
 * The host-side prologue that closes inherited descriptors before bwrap (or the unsandboxed shell)
 * starts: its argv, what it keeps and closes, that it runs nothing when it cannot list its
 * descriptors, and that a command (sandboxed or not) has only stdin, stdout and stderr open.
 * The end-to-end case (a service started with an extra descriptor) is
 * test/security/inherited-fds.test.ts.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSE_FDS_EXIT, CLOSE_FDS_FAILED, CLOSE_FDS_SHELL, closeInheritedFdsArgv } from '../../../src/tools/computer/sandbox/inherited-fds.js';
import { runCommand, type SandboxMode } from '../../../src/tools/computer/sandbox/run-command.js';
import { DEFAULT_BWRAP_PATH } from '../../../src/tools/computer/sandbox/probe.js';
import { sandboxUser, tempDir } from './support.js';

const isRoot = process.getuid?.() === 0;

/** Run argv with `extra` as `{ [child fd]: open fd here }` (no holes, so each lands where asked). */
function run(argv: string[], extra: Record<number, number | 'pipe'> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const stdio: (number | 'ignore' | 'pipe')[] = ['ignore', 'pipe', 'pipe'];
  for (const [at, fd] of Object.entries(extra)) {
    while (stdio.length < Number(at)) stdio.push('ignore');
    stdio[Number(at)] = fd;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio, env: { PATH: '/usr/bin:/bin' } });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c) => (stdout += c));
    child.stderr!.on('data', (c) => (stderr += c));
    for (const s of child.stdio.slice(3)) (s as NodeJS.WritableStream | null)?.end?.();
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Open descriptors from `ls -l /proc/self/fd` output, without ls's own handle on that folder. */
function openFds(lsOutput: string): number[] {
  const fds: number[] = [];
  for (const line of lsOutput.split('\n')) {
    const m = / (\d+) -> (.*)$/.exec(line);
    if (m && !m[2].startsWith('/proc/')) fds.push(Number(m[1]));
  }
  return fds.sort((a, b) => a - b);
}

const LIST = ['/bin/ls', '-l', '/proc/self/fd'];

describe('closeInheritedFdsArgv', () => {
  let scratch: { dir: string; cleanup: () => Promise<void> };
  let fd: number;
  beforeAll(async () => {
    scratch = await tempDir('inherited-fds-');
    const file = path.join(scratch.dir, 'hostfile');
    writeFileSync(file, 'secret\n', { mode: 0o600 });
    fd = openSync(file, 'r+');
  });
  afterAll(async () => {
    closeSync(fd);
    await scratch.cleanup();
  });

  it('is bash running a fixed script with the number to keep, then the real argv', () => {
    const argv = closeInheritedFdsArgv(4, ['/usr/bin/bwrap', '--args', '3', '--', 'x y']);
    expect(argv[0]).toBe(CLOSE_FDS_SHELL);
    expect(argv[1]).toBe('-c');
    expect(argv.slice(3)).toEqual(['close-inherited-fds', '4', '/usr/bin/bwrap', '--args', '3', '--', 'x y']);
    // The script is the same for every call: nothing of the argv is spliced into it.
    expect(closeInheritedFdsArgv(2, ['/bin/true'])[2]).toBe(argv[2]);
  });

  it('refuses a keep number below 2 or not an integer, and an empty argv', () => {
    expect(() => closeInheritedFdsArgv(1, ['/bin/true'])).toThrow(/keepThrough must be an integer >= 2, got 1/);
    expect(() => closeInheritedFdsArgv(2.5, ['/bin/true'])).toThrow(/got 2.5/);
    expect(() => closeInheritedFdsArgv(2, [])).toThrow(/argv is empty/);
  });

  it('without it, the child gets the extra descriptor (the setup the next cases rely on)', async () => {
    const r = await run(LIST, { 200: fd });
    expect(openFds(r.stdout)).toContain(200);
  });

  it('keeps 0..keepThrough and closes everything above, wherever it is', async () => {
    const withArgsFds = await run(closeInheritedFdsArgv(4, LIST), { 3: 'pipe', 4: 'pipe', 9: fd, 200: fd });
    expect(withArgsFds.stderr).toBe('');
    expect(openFds(withArgsFds.stdout)).toEqual([0, 1, 2, 3, 4]);
    const stdioOnly = await run(closeInheritedFdsArgv(2, LIST), { 3: 'pipe', 4: 'pipe', 200: fd });
    expect(openFds(stdioOnly.stdout)).toEqual([0, 1, 2]);
  });

  it('passes the argv through unchanged and returns the program\'s exit status', async () => {
    const r = await run(closeInheritedFdsArgv(2, ['/bin/bash', '-c', 'printf "%s|" "$@"; exit 7', 'zero', 'a b', '', '$HOME', '*']));
    expect(r.stdout).toBe('a b||$HOME|*|');
    expect(r.code).toBe(7);
  });

  it.skipIf(!existsSync(DEFAULT_BWRAP_PATH))('runs nothing when /proc/self/fd cannot be listed', async () => {
    // An empty /proc (the host's root, read-only, with a tmpfs over /proc).
    const noProc = [DEFAULT_BWRAP_PATH, '--ro-bind', '/', '/', '--dev', '/dev', '--tmpfs', '/proc', '--'];
    const r = await run([...noProc, ...closeInheritedFdsArgv(2, ['/bin/echo', 'ran'])], { 200: fd });
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`close-inherited-fds: ${CLOSE_FDS_FAILED}\n`);
    expect(r.code).toBe(CLOSE_FDS_EXIT);
  });
});

// Whatever this test process inherited without close-on-exec (a CI runner's or shell's
// descriptors; this process cannot make one itself) would show here; bwrap's own option and seccomp
// descriptors must not either.
describe('a command through runCommand', () => {
  let scratch: { dir: string; cleanup: () => Promise<void> };
  let home: string;
  const modes: Record<string, () => Promise<SandboxMode>> = {
    bwrap: async () => ({ kind: 'bwrap', bwrapPath: DEFAULT_BWRAP_PATH, network: false, ...(isRoot ? { user: { account: await sandboxUser(), dataDir: scratch.dir } } : {}) }),
    none: async () => ({ kind: 'none' }),
  };
  beforeAll(async () => {
    scratch = await tempDir('inherited-fds-run-');
    home = path.join(scratch.dir, 'home');
    mkdirSync(home);
  });
  afterAll(() => scratch.cleanup());

  it.each(Object.keys(modes))('has only stdin, stdout and stderr open (%s)', async (mode) => {
    const r = await runCommand({ command: LIST.join(' '), home, cwd: home, timeoutMs: 20_000, signal: new AbortController().signal, sandbox: await modes[mode](), logName: 'fds' });
    expect(r.exitCode, r.output.text).toBe(0);
    expect(openFds(r.output.text)).toEqual([0, 1, 2]);
  });
});
