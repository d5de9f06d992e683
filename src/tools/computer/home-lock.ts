/**
 * Per-agent-home readers–writer lock, in-process, keyed by the home's real path.
 *
 * Why: a path check (`resolveInHome`) and the operation that follows are two steps; a sandboxed
 * command of another turn of the same agent could swap a folder for a symlink in between and make
 * the service read or write outside the home. So:
 * - `command` holds the lock **exclusively** while it runs (its processes die with it: bubblewrap's
 *   pid namespace is torn down when the command ends) and while its full-output log is copied in;
 * - every in-service file operation on the home (the file tools, web_fetch's saved pages) holds it
 *   **shared**, so no command runs while the service resolves and uses a path.
 * Waiters are served first come, first served (a queued command is not starved by a stream of
 * readers). A waiter whose signal aborts (turn cancelled, tool timeout) leaves the queue with an
 * Error.
 *
 * Within one process the lock is a Map in memory. Several instances sharing agent homes (on
 * Postgres, README.md "Run several instances") also pass an {@link InstanceHomeLock}: after the
 * local lock, the same mode is taken across instances (a Postgres advisory lock keyed by agent id,
 * src/store/postgres/pg-home-lock.ts), so two instances never run commands in one home at once,
 * nor a command in one beside a file operation in the other. home-fs.ts (O_NOFOLLOW walk, fd
 * verified in the home) is the second line of defence when it does not hold (COMPUTER_SANDBOX=none
 * lets background processes outlive their command).
 */
import { ensureHome } from './home.js';

/** `shared` for file operations, `exclusive` for a running command. */
export type HomeLockMode = 'shared' | 'exclusive';

interface Waiter {
  mode: HomeLockMode;
  grant: () => void;
}

interface LockState {
  readers: number;
  writer: boolean;
  queue: Waiter[];
}

const locks = new Map<string, LockState>();

function compatible(s: LockState, mode: HomeLockMode): boolean {
  return mode === 'shared' ? !s.writer : !s.writer && s.readers === 0;
}

function take(s: LockState, mode: HomeLockMode): void {
  if (mode === 'shared') s.readers++;
  else s.writer = true;
}

function pump(key: string, s: LockState): void {
  while (s.queue.length && compatible(s, s.queue[0].mode)) {
    const w = s.queue.shift()!;
    take(s, w.mode);
    w.grant();
  }
  if (!s.writer && s.readers === 0 && s.queue.length === 0) locks.delete(key);
}

/**
 * Acquire the lock of the home whose real path is `key`.
 * @returns a release function (idempotent).
 * @throws Error when `signal` aborts while waiting.
 */
export function acquireHomeLock(key: string, mode: HomeLockMode, signal?: AbortSignal): Promise<() => void> {
  let s = locks.get(key);
  if (!s) {
    s = { readers: 0, writer: false, queue: [] };
    locks.set(key, s);
  }
  const state = s;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    if (mode === 'shared') state.readers--;
    else state.writer = false;
    pump(key, state);
  };
  if (state.queue.length === 0 && compatible(state, mode)) {
    take(state, mode);
    return Promise.resolve(release);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      const i = state.queue.indexOf(waiter);
      if (i !== -1) state.queue.splice(i, 1);
      pump(key, state);
      reject(new Error(`gave up waiting for the agent home: ${mode === 'shared' ? 'a command of this agent is still running there' : 'other operations on the home did not finish'} (the call was cancelled or timed out)`));
    };
    const waiter: Waiter = {
      mode,
      grant: () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(release);
      },
    };
    if (signal?.aborted) {
      pump(key, state);
      reject(new Error('cancelled before the agent home was free'));
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    state.queue.push(waiter);
  });
}

/**
 * The home lock of one agent across every instance sharing the agent homes.
 * `acquire` resolves once `mode` is held (shared holders coexist, exclusive is alone) and returns
 * the release (idempotent; never throws).
 * @throws Error when `signal` aborts while waiting, or the lock cannot be taken (database away).
 */
export interface InstanceHomeLock {
  acquire(agentId: string, mode: HomeLockMode, signal?: AbortSignal): Promise<() => Promise<void>>;
}

/** A home, optionally with the lock that extends it across instances (for agent `agentId`). */
export interface HomeLockTarget {
  home: string;
  across?: { lock: InstanceHomeLock; agentId: string };
}

/**
 * Run `fn` holding the lock of `target`'s home (created when missing; keyed by its real path) in
 * `mode`: the in-process lock, then (with `target.across`) the same mode across instances.
 * @throws whatever `fn` throws; Error when `signal` aborts while waiting or the cross-instance
 *   lock cannot be taken.
 */
export async function withHomeLock<T>(target: string | HomeLockTarget, mode: HomeLockMode, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
  const { home, across } = typeof target === 'string' ? { home: target, across: undefined } : target;
  const key = await ensureHome(home);
  const release = await acquireHomeLock(key, mode, signal);
  let releaseAcross: (() => Promise<void>) | undefined;
  try {
    if (across) releaseAcross = await across.lock.acquire(across.agentId, mode, signal);
    return await fn();
  } finally {
    await releaseAcross?.();
    release();
  }
}

/** Whether anything holds or waits for the lock of the home with real path `key` (for tests). */
export function homeLockBusy(key: string): boolean {
  return locks.has(key);
}
