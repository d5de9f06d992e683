/**
 * A pids cgroup per command, used when the service runs as root: the kernel does not enforce
 * RLIMIT_NPROC (`ulimit -u`) for host uid 0 (copy_process() exempts INIT_USER), and inside
 * bubblewrap's user namespace the command's uid still maps to host uid 0, so without a cgroup a
 * command could start any number of processes. The cgroup's `pids.max` bounds every process of the
 * command (bwrap included). Works with a cgroup v1 `pids` hierarchy or a cgroup v2 hierarchy with
 * the pids controller enabled for its children; where neither is writable, {@link createPidsCgroup}
 * returns null and the command runs with the ulimit alone.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';

/** One command's cgroup: `procs` is the file to write the pid into. */
export interface PidsCgroup {
  dir: string;
  procs: string;
  /** Remove the cgroup once its processes are gone (retries for up to ~5 s; best effort). */
  remove(): void;
}

const PARENT = 'turn-service-commands';

function hierarchyRoot(): string | null {
  if (existsSync('/sys/fs/cgroup/pids/cgroup.procs')) return '/sys/fs/cgroup/pids';
  for (const root of ['/sys/fs/cgroup', '/sys/fs/cgroup/unified']) {
    try {
      if (readFileSync(path.join(root, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('pids')) return root;
    } catch {
      // not a cgroup v2 root
    }
  }
  return null;
}

/**
 * A fresh cgroup limited to `maxPids` processes, or null when not running as root or no pids
 * hierarchy is writable here.
 */
export function createPidsCgroup(maxPids: number): PidsCgroup | null {
  if (process.getuid?.() !== 0) return null;
  const root = hierarchyRoot();
  if (!root) return null;
  try {
    const parent = path.join(root, PARENT);
    mkdirSync(parent, { recursive: true });
    if (!root.endsWith('/pids')) {
      // cgroup v2: children get the pids controller only when the parent delegates it.
      writeFileSync(path.join(root, 'cgroup.subtree_control'), '+pids');
      writeFileSync(path.join(parent, 'cgroup.subtree_control'), '+pids');
    }
    const dir = path.join(parent, randomUUID());
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'pids.max'), String(maxPids));
    return { dir, procs: path.join(dir, 'cgroup.procs'), remove: () => removeLater(dir) };
  } catch {
    return null;
  }
}

function removeLater(dir: string, attempt = 0): void {
  try {
    rmdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || attempt >= 50) return;
    setTimeout(() => removeLater(dir, attempt + 1), 100).unref();
  }
}

/** argv prefix that moves the shell into `cg` and then execs the rest of the argv. */
export function joinCgroupArgv(cg: PidsCgroup, argv: string[]): string[] {
  return ['/bin/sh', '-c', 'echo $$ > "$1" && shift && exec "$@"', 'sh', cg.procs, ...argv];
}
