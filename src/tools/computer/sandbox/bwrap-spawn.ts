/**
 * Start bwrap from a {@link BwrapInvocation}: the options go to the child's fd 3 and the seccomp
 * filter to fd 4 (sockets the child reads to end-of-file), and, when a sandbox user is given, the
 * child runs as that host user (setgroups(0), setgid, setuid before exec; libuv does this in the
 * forked child).
 *
 * bwrap gets no other descriptor: the child first runs the prologue of inherited-fds.ts, which
 * closes everything above fd 3 (or 4 with a seccomp filter) that the service inherited without
 * close-on-exec, then execs bwrap in the same process.
 */
import { spawn, type ChildProcessByStdio, type StdioPipe } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { ARGS_FD, SECCOMP_FD, type BwrapInvocation } from './bwrap-args.js';
import { SANDBOX_PATH } from './command-env.js';
import { closeInheritedFdsArgv } from './inherited-fds.js';
import type { SandboxUser } from './sandbox-user.js';

export interface BwrapSpawnOptions {
  /** Host user to run bwrap as (required when this process is root; omitted otherwise). */
  user?: SandboxUser;
  /** Start the child as a new session / process group (see run-command.ts). */
  detached?: boolean;
}

/**
 * Spawn bwrap with piped stdout/stderr and only fds 0–2, {@link ARGS_FD} and (with a filter)
 * {@link SECCOMP_FD} open; errors of the fd writes surface as the child's failure. The child's pid
 * is bwrap's (the prologue execs it). When the prologue cannot close the inherited descriptors,
 * bwrap never starts: the child exits 126 with the reason on stderr (inherited-fds.ts); a bwrap
 * binary that cannot be executed is reported by bash on stderr with exit 126/127 (not as a spawn
 * `error` event).
 */
export function spawnBwrap(inv: BwrapInvocation, o: BwrapSpawnOptions = {}): ChildProcessByStdio<null, Readable, Readable> {
  const stdio: ('ignore' | 'pipe')[] = ['ignore', 'pipe', 'pipe', 'pipe'];
  if (inv.seccomp) stdio.push('pipe');
  const lastFd = inv.seccomp ? SECCOMP_FD : ARGS_FD;
  if (stdio.length !== lastFd + 1) throw new Error('bwrap fd layout mismatch');
  const argv = closeInheritedFdsArgv(lastFd, inv.argv);
  const child = spawn(argv[0], argv.slice(1), {
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
