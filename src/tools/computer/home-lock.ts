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
  /** Who will hold the lock once granted (see {@link HomeLockWait.holder}). */
  holder?: string;
}

interface LockState {
  readers: number;
  writer: boolean;
  /** Who holds it exclusively (a command's {@link HomeLockWait.holder}), while `writer`. */
  writerHolder?: string;
  queue: Waiter[];
}

/** How long a call waits for the home before it says what it waits for ({@link HomeLockWait.onWait}), in ms. */
export const HOME_WAIT_NOTICE_MS = 1000;

/**
 * What a caller of {@link acquireHomeLock} / {@link withHomeLock} tells and is told while it waits.
 * A tool call's context (`{signal, emit}`) fits as it is.
 */
export interface HomeLockWait {
  /** Aborts the wait (turn cancelled, tool timeout): the caller gets an Error. */
  signal?: AbortSignal;
  /**
   * Who takes the lock, as other callers' wait notices name it, e.g. `a command of background job
   * "Nightly build" (<job id>)`; unset: `a command of this agent`.
   */
  holder?: string;
  /**
   * Called once when the lock is not granted within {@link HOME_WAIT_NOTICE_MS}, with what the
   * call waits for (`waiting for the agent's home: a command of background job "…" (…) is running;
   * this call goes on when it ends`) and `data: {kind: "waiting_for_home", holder}` (holder null
   * when file operations hold the home); never when the lock is free soon enough.
   */
  emit?: (notice: { message: string; data: { kind: 'waiting_for_home'; holder: string | null } }) => void;
}

const NO_HOLDER = 'a command of this agent';

/** What a waiter of `state` waits for, as one sentence and the holder it names (null: file operations). */
function waitNotice(state: LockState, self: Waiter): { message: string; data: { kind: 'waiting_for_home'; holder: string | null } } {
  const ahead = state.queue.slice(0, Math.max(0, state.queue.indexOf(self))).find((w) => w.mode === 'exclusive');
  let what: string;
  let holder: string | null = null;
  if (state.writer) {
    holder = state.writerHolder ?? NO_HOLDER;
    what = `${holder} is running`;
  } else if (ahead) {
    holder = ahead.holder ?? NO_HOLDER;
    what = `${holder} is about to run`;
  } else {
    what = 'file operations of this agent are using it';
  }
  return { message: `waiting for the agent's home: ${what}; this call goes on when it ends`, data: { kind: 'waiting_for_home', holder } };
}

const locks = new Map<string, LockState>();

function compatible(s: LockState, mode: HomeLockMode): boolean {
  return mode === 'shared' ? !s.writer : !s.writer && s.readers === 0;
}

function take(s: LockState, mode: HomeLockMode, holder: string | undefined): void {
  if (mode === 'shared') s.readers++;
  else {
    s.writer = true;
    s.writerHolder = holder;
  }
}

function pump(key: string, s: LockState): void {
  while (s.queue.length && compatible(s, s.queue[0].mode)) {
    const w = s.queue.shift()!;
    take(s, w.mode, w.holder);
    w.grant();
  }
  if (!s.writer && s.readers === 0 && s.queue.length === 0) locks.delete(key);
}

/**
 * Acquire the lock of the home whose real path is `key`.
 * @param wait the signal that aborts the wait, who takes the lock and where to say what it waits
 *   for after {@link HOME_WAIT_NOTICE_MS} ({@link HomeLockWait}); a bare AbortSignal is `{signal}`.
 * @returns a release function (idempotent).
 * @throws Error when the signal aborts while waiting.
 */
export function acquireHomeLock(key: string, mode: HomeLockMode, wait?: AbortSignal | HomeLockWait): Promise<() => void> {
  const { signal, holder, emit } = wait instanceof AbortSignal ? { signal: wait, holder: undefined, emit: undefined } : (wait ?? {});
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
    else {
      state.writer = false;
      state.writerHolder = undefined;
    }
    pump(key, state);
  };
  if (state.queue.length === 0 && compatible(state, mode)) {
    take(state, mode, holder);
    return Promise.resolve(release);
  }
  return new Promise((resolve, reject) => {
    const notice = emit
      ? setTimeout(() => {
          try {
            emit(waitNotice(state, waiter));
          } catch {
            // a notice that cannot be shown does not stop the wait
          }
        }, HOME_WAIT_NOTICE_MS)
      : undefined;
    notice?.unref();
    const onAbort = () => {
      clearTimeout(notice);
      const i = state.queue.indexOf(waiter);
      if (i !== -1) state.queue.splice(i, 1);
      pump(key, state);
      reject(new Error(`gave up waiting for the agent home: ${mode === 'shared' ? 'a command of this agent is still running there' : 'other operations on the home did not finish'} (the call was cancelled or timed out)`));
    };
    const waiter: Waiter = {
      mode,
      holder,
      grant: () => {
        clearTimeout(notice);
        signal?.removeEventListener('abort', onAbort);
        resolve(release);
      },
    };
    if (signal?.aborted) {
      clearTimeout(notice);
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
 * @param wait as for {@link acquireHomeLock}: a tool call passes its context (`{signal, emit}`), so
 *   a call kept waiting (e.g. by a background job's long command) streams a `tool.progress` saying
 *   what it waits for. The wait for the lock across instances is not described (its holder is not
 *   known here).
 * @throws whatever `fn` throws; Error when the signal aborts while waiting or the cross-instance
 *   lock cannot be taken.
 */
export async function withHomeLock<T>(target: string | HomeLockTarget, mode: HomeLockMode, wait: AbortSignal | HomeLockWait | undefined, fn: () => Promise<T>): Promise<T> {
  const { home, across } = typeof target === 'string' ? { home: target, across: undefined } : target;
  const signal = wait instanceof AbortSignal ? wait : wait?.signal;
  const key = await ensureHome(home);
  const release = await acquireHomeLock(key, mode, wait);
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
