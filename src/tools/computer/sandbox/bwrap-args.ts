/**
 * bubblewrap (bwrap(1)) argument list for one command.
 *
 * What the sandbox gives a command:
 * - every namespace unshared (`--unshare-all`: user, ipc, pid, net, uts, cgroup); the network
 *   namespace is shared again only when `network` is true (`--share-net`, COMPUTER_NETWORK=on);
 * - system folders read-only (/usr, /etc and the /bin, /lib… links), with the password hashes and
 *   private keys in /etc masked; nothing else of the host (no DATA_DIR, no project folder, no /root);
 * - the agent home bound read-write at its own path and used as the working folder;
 * - a fresh /proc (only the sandbox's own processes), a minimal /dev, a private /tmp and /var/tmp
 *   (RAM-backed tmpfs, each limited to `tmpBytes`: COMPUTER_TMP_MAX_MB);
 * - an unprivileged identity: uid/gid {@link SANDBOX_UID} inside (`--uid`/`--gid`, mapped by the user
 *   namespace to the service's own uid, so the home the service owns stays writable and files the
 *   command creates belong to the service outside) and no capabilities at all (`--cap-drop ALL`;
 *   without it a service running as root gives the command uid 0 with a full capability set inside
 *   its namespace). Note: when the service runs as root the inside uid still maps to host uid 0, so
 *   root-owned host files visible in the sandbox keep their owner permissions, and RLIMIT_NPROC is
 *   not enforced by the kernel for host uid 0 (the process limit then comes from a pids cgroup,
 *   see pids-cgroup.ts);
 * - `--die-with-parent` (the sandbox dies with the service) and `--clearenv` followed by exactly the
 *   variables in `env`.
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
}

/** The bwrap argv (binary first). Reads the host file system only to mirror /bin-style links. */
export function bwrapArgv(o: BwrapOptions): string[] {
  const args: string[] = [o.bwrapPath, '--unshare-all'];
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
  args.push('--proc', '/proc', '--dev', '/dev');
  // `--size` applies to the next --tmpfs only (bwrap >= 0.7).
  for (const t of ['/tmp', '/var/tmp']) {
    if (o.tmpBytes) args.push('--size', String(o.tmpBytes));
    args.push('--tmpfs', t);
  }
  args.push('--bind', o.home, o.home, '--chdir', o.cwd);
  args.push('--clearenv');
  for (const [k, v] of Object.entries(o.env)) args.push('--setenv', k, v);
  args.push('--', ...o.argv);
  return args;
}

function lstatSafe(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}
