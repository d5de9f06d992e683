/**
 * Can bubblewrap start here? Checked once per bwrap path (the answer is cached for the process):
 * the binary must exist and a sandbox with every namespace unshared must run `/bin/true`.
 * Typical failures: the Debian package `bubblewrap` is missing, or unprivileged user namespaces
 * are disabled (kernel.unprivileged_userns_clone=0, a container without CAP_SYS_ADMIN or with a
 * seccomp profile that blocks clone(CLONE_NEWUSER)).
 *
 * The probe's sandbox home is a temporary directory `bwrap-probe-<pid namespace>-<pid>-<random>`
 * in the OS temp directory, removed when the probe ends; a service killed meanwhile (SIGKILL)
 * leaves it behind, so each probe first removes those of processes that are gone
 * ({@link removeStaleProbeDirs}).
 */
import { readlinkSync } from 'node:fs';
import { access, chown, constants, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bwrapInvocation } from './bwrap-args.js';
import { spawnBwrap } from './bwrap-spawn.js';
import { SANDBOX_PATH } from './command-env.js';
import type { SandboxUser } from './sandbox-user.js';
import { seccompProgram, seccompSupported } from './seccomp.js';

/** Default location of the binary (Debian package `bubblewrap`). */
export const DEFAULT_BWRAP_PATH = '/usr/bin/bwrap';

/** `tmpfsSize`: whether this bwrap supports `--size` for a tmpfs (bubblewrap >= 0.7). */
export type SandboxProbe = { ok: true; tmpfsSize: boolean } | { ok: false; reason: string };

const cache = new Map<string, Promise<SandboxProbe>>();

/** Start of a probe directory's name. */
const PROBE_DIR_PREFIX = 'bwrap-probe-';
/** A probe directory's name: `<prefix><pid namespace>-<pid>-…`. */
const LEFT_BEHIND = new RegExp(`^${PROBE_DIR_PREFIX}(\\d+)-(\\d+)-`);

/** This process's pid namespace (the inode number of /proc/self/ns/pid), or `0` where it cannot be read. */
function pidNamespace(): string {
  try {
    return /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? '0';
  } catch {
    return '0';
  }
}

/** True while process `pid` exists (`kill(pid, 0)`: EPERM means it exists under another user). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Remove the probe directories in `root` whose creating process is gone (a service SIGKILLed
 * while it probed): those named `bwrap-probe-<ns>-<pid>-…` with this process's pid namespace `ns`
 * and a `pid` that no longer exists. Left alone: a directory of a live process (another instance
 * probing now, or a pid reused since — kept, never wrongly removed), of another pid namespace (a
 * container sharing the temp directory: its pids cannot be checked from here), or named otherwise
 * (older builds' `bwrap-probe-<random>`: whose they are cannot be told). Never throws.
 * @param root the directory to look in [the OS temp directory].
 * @returns the names of the directories removed.
 */
export async function removeStaleProbeDirs(root: string = os.tmpdir()): Promise<string[]> {
  const ns = pidNamespace();
  const names = await readdir(root).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const m = LEFT_BEHIND.exec(name);
    if (!m || m[1] !== ns) continue;
    const pid = Number(m[2]);
    if (pid === process.pid || !Number.isSafeInteger(pid) || pid <= 0 || processExists(pid)) continue;
    try {
      await rm(path.join(root, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      // not ours to remove (another user's), or gone meanwhile
    }
  }
  return removed;
}

/**
 * Probe (once per `bwrapPath` and user) whether bwrap can start a sandbox, with the same options,
 * seccomp filter and host user as a command; never throws.
 * @param user the host user bwrap runs as (the sandbox user when the service is root).
 */
export function probeBwrap(bwrapPath: string = DEFAULT_BWRAP_PATH, user?: SandboxUser): Promise<SandboxProbe> {
  const key = `${bwrapPath}\0${user?.uid ?? ''}`;
  let p = cache.get(key);
  if (!p) {
    p = runProbe(bwrapPath, user);
    cache.set(key, p);
  }
  return p;
}

async function runProbe(bwrapPath: string, user?: SandboxUser): Promise<SandboxProbe> {
  try {
    await access(bwrapPath, constants.X_OK);
  } catch {
    return { ok: false, reason: `bubblewrap is not installed (${bwrapPath} not found); install the Debian package "bubblewrap", or set COMPUTER_SANDBOX=none to run commands without isolation` };
  }
  await removeStaleProbeDirs();
  const dir = await mkdtemp(path.join(os.tmpdir(), `${PROBE_DIR_PREFIX}${pidNamespace()}-${process.pid}-`));
  try {
    if (user) await chown(dir, user.uid, user.gid);
    const seccomp = seccompSupported() ? seccompProgram() : null;
    const run = (tmpBytes?: number) => new Promise<void>((resolve, reject) => {
      const inv = bwrapInvocation({ bwrapPath, home: dir, cwd: dir, network: false, tmpBytes, env: { PATH: SANDBOX_PATH }, argv: ['/bin/true'] }, seccomp);
      const child = spawnBwrap(inv, { user });
      let stderr = '';
      child.stdout.resume();
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('close', (code, sig) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(stderr.trim() || `bwrap exited with ${code ?? sig}`));
      });
    });
    await run();
    const tmpfsSize = await run(1024 * 1024).then(() => true, () => false);
    return { ok: true, tmpfsSize };
  } catch (err) {
    return { ok: false, reason: `bubblewrap cannot start a sandbox here: ${(err as Error).message} (unprivileged user namespaces may be disabled${user ? ` for the sandbox user ${user.name}` : ''}); set COMPUTER_SANDBOX=none to run commands without isolation` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
