/**
 * Can bubblewrap start here? Checked once per bwrap path (the answer is cached for the process):
 * the binary must exist and a sandbox with every namespace unshared must run `/bin/true`.
 * Typical failures: the Debian package `bubblewrap` is missing, or unprivileged user namespaces
 * are disabled (kernel.unprivileged_userns_clone=0, a container without CAP_SYS_ADMIN or with a
 * seccomp profile that blocks clone(CLONE_NEWUSER)).
 */
import { access, chown, constants, mkdtemp, rm } from 'node:fs/promises';
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
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bwrap-probe-'));
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
