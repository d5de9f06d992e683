/**
 * Start bwrap from a {@link BwrapInvocation}: the options go to the child's fd 3 and the seccomp
 * filter to fd 4 (sockets the child reads to end-of-file), and, when a sandbox user is given, the
 * child runs as that host user (setgroups(0), setgid, setuid before exec; libuv does this in the
 * forked child).
 */
import { spawn, type ChildProcessByStdio, type StdioPipe } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { ARGS_FD, SECCOMP_FD, type BwrapInvocation } from './bwrap-args.js';
import { SANDBOX_PATH } from './command-env.js';
import type { SandboxUser } from './sandbox-user.js';

export interface BwrapSpawnOptions {
  /** Host user to run bwrap as (required when this process is root; omitted otherwise). */
  user?: SandboxUser;
  /** Start the child as a new session / process group (see run-command.ts). */
  detached?: boolean;
}

/** Spawn bwrap with piped stdout/stderr; errors of the fd writes surface as the child's failure. */
export function spawnBwrap(inv: BwrapInvocation, o: BwrapSpawnOptions = {}): ChildProcessByStdio<null, Readable, Readable> {
  const stdio: ('ignore' | 'pipe')[] = ['ignore', 'pipe', 'pipe', 'pipe'];
  if (inv.seccomp) stdio.push('pipe');
  if (stdio.length !== (inv.seccomp ? SECCOMP_FD : ARGS_FD) + 1) throw new Error('bwrap fd layout mismatch');
  const child = spawn(inv.argv[0], inv.argv.slice(1), {
    // `/`: the sandbox user may not be able to enter the home's parent folders by path.
    cwd: '/',
    // bwrap itself gets nothing but a PATH; --clearenv/--setenv give the command its environment.
    env: { PATH: SANDBOX_PATH },
    stdio: stdio as StdioPipe[],
    detached: o.detached ?? false,
    ...(o.user ? { uid: o.user.uid, gid: o.user.gid } : {}),
  }) as unknown as ChildProcessByStdio<null, Readable, Readable>;
  const write = (fd: number, data: Buffer) => {
    const s = child.stdio[fd] as Writable | null;
    if (!s) return;
    // EPIPE when bwrap exits early (its own error on stderr says why).
    s.on('error', () => {});
    s.end(data);
  };
  write(ARGS_FD, inv.options);
  if (inv.seccomp) write(SECCOMP_FD, inv.seccomp);
  return child;
}
