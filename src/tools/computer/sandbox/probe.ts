/**
 * Can bubblewrap start here? Checked once per bwrap path (the answer is cached for the process):
 * the binary must exist and a sandbox with every namespace unshared must run `/bin/true`.
 * Typical failures: the Debian package `bubblewrap` is missing, or unprivileged user namespaces
 * are disabled (kernel.unprivileged_userns_clone=0, a container without CAP_SYS_ADMIN or with a
 * seccomp profile that blocks clone(CLONE_NEWUSER)).
 */
import { execFile } from 'node:child_process';
import { access, constants, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bwrapArgv } from './bwrap-args.js';
import { SANDBOX_PATH } from './command-env.js';

/** Default location of the binary (Debian package `bubblewrap`). */
export const DEFAULT_BWRAP_PATH = '/usr/bin/bwrap';

/** `tmpfsSize`: whether this bwrap supports `--size` for a tmpfs (bubblewrap >= 0.7). */
export type SandboxProbe = { ok: true; tmpfsSize: boolean } | { ok: false; reason: string };

const cache = new Map<string, Promise<SandboxProbe>>();

/** Probe (once per `bwrapPath`) whether bwrap can start a sandbox; never throws. */
export function probeBwrap(bwrapPath: string = DEFAULT_BWRAP_PATH): Promise<SandboxProbe> {
  let p = cache.get(bwrapPath);
  if (!p) {
    p = runProbe(bwrapPath);
    cache.set(bwrapPath, p);
  }
  return p;
}

async function runProbe(bwrapPath: string): Promise<SandboxProbe> {
  try {
    await access(bwrapPath, constants.X_OK);
  } catch {
    return { ok: false, reason: `bubblewrap is not installed (${bwrapPath} not found); install the Debian package "bubblewrap", or set COMPUTER_SANDBOX=none to run commands without isolation` };
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bwrap-probe-'));
  try {
    const run = (tmpBytes?: number) => new Promise<void>((resolve, reject) => {
      const argv = bwrapArgv({ bwrapPath, home: dir, cwd: dir, network: false, tmpBytes, env: { PATH: SANDBOX_PATH }, argv: ['/bin/true'] });
      execFile(argv[0], argv.slice(1), { env: { PATH: SANDBOX_PATH }, timeout: 10_000 }, (err, _stdout, stderr) => {
        if (err) reject(new Error(String(stderr).trim() || err.message));
        else resolve();
      });
    });
    await run();
    const tmpfsSize = await run(1024 * 1024).then(() => true, () => false);
    return { ok: true, tmpfsSize };
  } catch (err) {
    return { ok: false, reason: `bubblewrap cannot start a sandbox here: ${(err as Error).message} (unprivileged user namespaces may be disabled); set COMPUTER_SANDBOX=none to run commands without isolation` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
