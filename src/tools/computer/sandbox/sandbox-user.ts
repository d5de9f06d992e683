/**
 * The host user that runs bubblewrap when the service itself runs as root
 * (COMPUTER_SANDBOX_USER, default `turnsandbox`, a system user made at install:
 * `useradd --system --user-group --no-create-home --shell /usr/sbin/nologin turnsandbox`).
 *
 * Why: bubblewrap maps the command's uid to the uid that started it. Started by root, every
 * command is host uid 0 outside its user namespace: the kernel then lets it write the sysctls under
 * /proc/sys (kernel.core_pattern runs any program as host root), skips RLIMIT_NPROC, and root-owned
 * files keep their owner permissions. Started by an unprivileged host user, none of that applies.
 * A service that is not root runs bwrap as itself and needs no sandbox user.
 */
import { execFile } from 'node:child_process';
import { chmodSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { SANDBOX_PATH } from './command-env.js';

/** An unprivileged host account bwrap runs as. */
export interface SandboxUser {
  name: string;
  uid: number;
  gid: number;
}

/** Whether this process runs as host root. */
export function runningAsRoot(): boolean {
  return process.getuid?.() === 0;
}

/**
 * Look up `name` (a user name or a numeric uid) with getent(1) (so NSS accounts work too).
 * @returns the account, or a one-line reason why it cannot be used (missing, or uid/gid 0).
 */
export function lookupSandboxUser(name: string): Promise<SandboxUser | { reason: string }> {
  return new Promise((resolve) => {
    execFile('getent', ['passwd', name], { env: { PATH: SANDBOX_PATH }, timeout: 10_000 }, (err, stdout) => {
      const fields = String(stdout).trim().split('\n')[0]?.split(':') ?? [];
      const uid = Number(fields[2]);
      const gid = Number(fields[3]);
      if (err || fields.length < 4 || !Number.isInteger(uid) || !Number.isInteger(gid)) {
        resolve({ reason: `the service runs as root and the sandbox user "${name}" (COMPUTER_SANDBOX_USER) does not exist; create it (useradd --system --user-group --no-create-home --shell /usr/sbin/nologin ${name}) or run the service as a non-root user` });
      } else if (uid === 0 || gid === 0) {
        resolve({ reason: `COMPUTER_SANDBOX_USER "${name}" is root (uid ${uid}, gid ${gid}); name an unprivileged user` });
      } else {
        resolve({ name: fields[0], uid, gid });
      }
    });
  });
}

function realpathOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** Whether `user` may search (traverse) the folder with stat `st` (owner, group, then others). */
function searchable(st: { uid: number; gid: number; mode: number }, user: SandboxUser): boolean {
  if (st.uid === user.uid) return (st.mode & 0o100) !== 0;
  if (st.gid === user.gid) return (st.mode & 0o010) !== 0;
  return (st.mode & 0o001) !== 0;
}

/**
 * Make the folders above `home` searchable by `user` where the service may: bwrap, started as
 * `user`, must reach the home to bind it. Each ancestor from `home`'s parent up to and including
 * `dataDir` that this process owns gets search permission for others added (o+x: enter, never
 * list or read); the folders above `dataDir` must already be searchable.
 * @throws Error naming the folder `user` cannot pass and what to do.
 */
export function ensureHomeReachable(home: string, dataDir: string, user: SandboxUser): void {
  const stop = realpathOr(path.resolve(dataDir));
  const me = process.getuid?.();
  for (let dir = path.dirname(path.resolve(home)); ; dir = path.dirname(dir)) {
    const st = statSync(dir);
    if (!searchable(st, user)) {
      const ours = st.uid === me && (dir === stop || dir.startsWith(`${stop}${path.sep}`));
      if (!ours) {
        throw new Error(`the sandbox user ${user.name} cannot reach the agent home: ${dir} is not searchable by it (mode ${(st.mode & 0o777).toString(8)}); allow it with chmod o+x ${dir}, or use a DATA_DIR whose parent folders are searchable`);
      }
      chmodSync(dir, (st.mode & 0o7777) | 0o001);
    }
    if (dir === path.dirname(dir)) return;
  }
}

/**
 * Give `user` everything in `home` (the home itself included) that it does not own yet, so that
 * files the file tools wrote as root are the command's to change. Symbolic links are changed
 * themselves, never followed, each from inside its own folder (find -execdir: no path is
 * resolved again through a folder that could have been swapped for a link), and the walk stays on
 * the home's file system (-xdev). Runs
 * while no command of the home is running (under the exclusive home lock). Best effort: an entry
 * that vanishes or cannot be changed meanwhile stays as it is (the command then reports its own
 * "Permission denied"), so this never fails a command.
 */
export function chownHome(home: string, user: SandboxUser): Promise<void> {
  const owner = `${user.uid}:${user.gid}`;
  const args = [home, '-xdev', '(', '!', '-uid', String(user.uid), '-o', '!', '-gid', String(user.gid), ')', '-execdir', 'chown', '-h', owner, '{}', '+'];
  return new Promise((resolve) => {
    execFile('find', args, { env: { PATH: SANDBOX_PATH }, timeout: 60_000, maxBuffer: 1024 * 1024 }, () => resolve());
  });
}
