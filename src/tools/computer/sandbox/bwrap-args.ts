/**
 * bubblewrap (bwrap(1)) argument list for one command.
 *
 * What the sandbox gives a command:
 * - every namespace unshared (`--unshare-all`: user, ipc, pid, net, uts, cgroup); the network
 *   namespace is shared again only when `network` is true (`--share-net`, COMPUTER_NETWORK=on);
 * - system folders read-only (/usr, /etc and the /bin, /lib… links), with the password hashes and
 *   private keys in /etc masked; nothing else of the host (no DATA_DIR, no project folder, no /root);
 * - the agent home bound read-write at its own path and used as the working folder;
 * - a fresh /proc (only the sandbox's own processes), a minimal /dev, a private /tmp, /var/tmp and
 *   /dev/shm (RAM-backed tmpfs, each limited to `tmpBytes`: COMPUTER_TMP_MAX_MB);
 * - nothing else writable: bwrap's own root (a tmpfs holding the mount points), /dev and the
 *   empty folders masking /etc's private keys are remounted read-only once everything is mounted
 *   (each is RAM-backed and unbounded: writable, a command could fill the host's memory);
 * - an unprivileged identity: uid/gid {@link SANDBOX_UID} inside (`--uid`/`--gid`, mapped by the user
 *   namespace to the host user that started bwrap: the service's own user, or the sandbox user when
 *   the service is root, see sandbox-user.ts — never host uid 0), no capabilities at all
 *   (`--cap-drop ALL`), and no further user namespaces (`--disable-userns`);
 * - /proc/sys, /proc/sysrq-trigger, /proc/irq and /proc/bus read-only on top of the fresh /proc
 *   (kernel tunables such as kernel.core_pattern are never the command's to change);
 * - a seccomp filter (seccomp.ts) refusing the system calls a command never needs;
 * - `--die-with-parent` (the sandbox dies with the service) and `--clearenv` followed by exactly the
 *   variables in `env`.
 *
 * Everything but the command itself reaches bwrap through file descriptors: the options (with the
 * environment's values) as NUL-separated `--args` on fd {@link ARGS_FD}, the seccomp program on fd
 * {@link SECCOMP_FD}; so no secret passed in `env` appears in a command line (/proc/<pid>/cmdline
 * is readable by every local user).
 *
 * `--new-session` is deliberately not used: the service spawns bwrap as a new session already
 * (detached, so there is no controlling terminal to inject into), and staying in one process group
 * lets a timeout send SIGTERM to every process of the command before SIGKILL.
 */
import { existsSync, lstatSync, readlinkSync } from 'node:fs';

/** uid and gid of the command inside the sandbox (65534: "nobody"/"nogroup" in /etc/passwd and /etc/group). */
export const SANDBOX_UID = 65534;

/** Top-level host paths that may be symlinks into /usr (merged-/usr) or real folders. */
const SYSTEM_LINKS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/** Files under /etc replaced by /dev/null and folders replaced by an empty tmpfs. */
const MASKED_FILES = ['/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-', '/etc/sudoers'];
const MASKED_DIRS = ['/etc/ssl/private', '/etc/ssh', '/etc/sudoers.d'];

/** Child fd carrying bwrap's NUL-separated options (`--args`). */
export const ARGS_FD = 3;
/** Child fd carrying the compiled seccomp filter (`--seccomp`). */
export const SECCOMP_FD = 4;

/** /proc entries bound read-only over the sandbox's own /proc. */
const PROC_READ_ONLY = ['/proc/sys', '/proc/sysrq-trigger', '/proc/irq', '/proc/bus'];

export interface BwrapOptions {
  /** Absolute path of the bwrap binary. */
  bwrapPath: string;
  /** Agent home (absolute, existing): bound read-write at the same path. */
  home: string;
  /** Working folder inside the home (absolute). */
  cwd: string;
  /** Share the host network (COMPUTER_NETWORK=on). */
  network: boolean;
  /** The complete environment of the command. */
  env: Record<string, string>;
  /** Size of each private tmpfs (/tmp, /var/tmp) in bytes; 0/undefined = unbounded (RAM-backed!). */
  tmpBytes?: number;
  /** What to run inside, e.g. from `limitedShellArgv`. */
  argv: string[];
  /** Extra read-only binds (host `source` at sandbox `target`), e.g. skill folders at /skills/<name>. */
  roBinds?: { source: string; target: string }[];
  /** Symbolic links to create inside the sandbox (`link` → `target`). */
  symlinks?: { link: string; target: string }[];
}

/** How to start bwrap: `argv` (binary first) and the data for the child's extra fds. */
export interface BwrapInvocation {
  /** `bwrap --args 3 [--seccomp 4] -- <o.argv>`: holds no value from `env`. */
  argv: string[];
  /** NUL-terminated options to write to fd {@link ARGS_FD}. */
  options: Buffer;
  /** Seccomp program to write to fd {@link SECCOMP_FD}, or null (no filter: see `seccomp`). */
  seccomp: Buffer | null;
}

/**
 * The bwrap invocation for `o`. Reads the host file system only to mirror /bin-style links.
 * @param seccomp the compiled filter (seccomp.ts), or null on an architecture without one.
 */
export function bwrapInvocation(o: BwrapOptions, seccomp: Buffer | null): BwrapInvocation {
  const options = bwrapOptions(o);
  const argv = [o.bwrapPath, '--args', String(ARGS_FD)];
  if (seccomp) argv.push('--seccomp', String(SECCOMP_FD));
  argv.push('--', ...o.argv);
  return { argv, options: Buffer.from(options.map((a) => `${a}\0`).join('')), seccomp };
}

/** bwrap's options (without the binary and the command). */
export function bwrapOptions(o: BwrapOptions): string[] {
  const args: string[] = ['--unshare-all', '--unshare-user', '--disable-userns'];
  if (o.network) args.push('--share-net');
  args.push('--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_UID), '--cap-drop', 'ALL');
  args.push('--die-with-parent', '--hostname', 'sandbox');
  args.push('--ro-bind', '/usr', '/usr');
  for (const p of SYSTEM_LINKS) {
    const stat = lstatSafe(p);
    if (!stat) continue;
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(p), p);
    else args.push('--ro-bind', p, p);
  }
  args.push('--ro-bind', '/etc', '/etc');
  for (const f of MASKED_FILES) if (existsSync(f)) args.push('--ro-bind', '/dev/null', f);
  for (const d of MASKED_DIRS) if (existsSync(d)) args.push('--tmpfs', d);
  if (o.network) {
    // /etc/resolv.conf may point into /run (systemd-resolved); make that target visible.
    args.push('--ro-bind-try', '/run/systemd/resolve', '/run/systemd/resolve');
  }
  args.push('--proc', '/proc');
  for (const p of PROC_READ_ONLY) args.push('--ro-bind-try', p, p);
  args.push('--dev', '/dev');
  // `--size` applies to the next --tmpfs only (bwrap >= 0.7).
  for (const t of ['/tmp', '/var/tmp', '/dev/shm']) {
    if (o.tmpBytes) args.push('--size', String(o.tmpBytes));
    args.push('--tmpfs', t);
  }
  args.push('--bind', o.home, o.home, '--chdir', o.cwd);
  for (const b of o.roBinds ?? []) args.push('--ro-bind', b.source, b.target);
  for (const l of o.symlinks ?? []) args.push('--symlink', l.target, l.link);
  // Last, once every mount point exists: the tmpfs left writable become read-only (not recursive:
  // the home, /tmp, /var/tmp and /dev/shm mounted on them stay writable; device nodes still work).
  for (const d of MASKED_DIRS) if (existsSync(d)) args.push('--remount-ro', d);
  args.push('--remount-ro', '/dev', '--remount-ro', '/');
  args.push('--clearenv');
  for (const [k, v] of Object.entries(o.env)) args.push('--setenv', k, v);
  return args;
}

function lstatSafe(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}
