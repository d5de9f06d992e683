/**
 * Run one shell command (`bash -lc`) in the agent home: inside bubblewrap, or unsandboxed when the
 * operator chose COMPUTER_SANDBOX=none. Either way the environment is the minimal one from
 * {@link commandEnvironment} (never the service's), resource limits apply, the command gets no
 * file descriptor of the service but stdin (/dev/null), stdout and stderr (descriptors the service
 * inherited without close-on-exec are closed on the host before bwrap or the shell starts:
 * inherited-fds.ts), and the command is its own process group (spawned detached = a new
 * session), so that:
 * - a timeout sends SIGTERM to the whole group, then SIGKILL after `killGraceMs`;
 * - an abort (turn cancelled, tool timeout) does the same;
 * - when the main process exits, whatever it left running in its group is killed (inside bwrap the
 *   pid namespace is torn down with it anyway), so no command leaves processes behind.
 */
import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { bwrapInvocation, type BwrapOptions } from './bwrap-args.js';
import { spawnBwrap } from './bwrap-spawn.js';
import { commandEnvironment } from './command-env.js';
import { closeInheritedFdsArgv } from './inherited-fds.js';
import { DEFAULT_LIMITS, limitedShellArgv, type CommandLimits } from './limits.js';
import { OutputCapture, type CapturedOutput, type OutputCaptureOptions } from './output-capture.js';
import { measureHome } from '../home-budget.js';
import { chownHome, ensureHomeReachable, type SandboxUser } from './sandbox-user.js';
import { seccompProgram, seccompSupported } from './seccomp.js';

/** How commands are isolated. */
export type SandboxMode =
  | {
      kind: 'bwrap';
      bwrapPath: string;
      network: boolean;
      /** Size of /tmp and /var/tmp each, bytes (0/absent: unbounded). */
      tmpBytes?: number;
      /**
       * Host user that runs bwrap (set when the service is root, see sandbox-user.ts); the home is
       * handed to it before each command, and the folders from the home up to `dataDir` are made
       * searchable by it.
       */
      user?: { account: SandboxUser; dataDir: string };
    }
  | { kind: 'none' };

export interface RunCommandOptions {
  command: string;
  /** Real path of the agent home. */
  home: string;
  /** Working folder (absolute, inside the home, existing). */
  cwd: string;
  /** The call's extra environment variables. */
  env?: Record<string, string>;
  /** Time limit in ms; then the group gets SIGTERM, and SIGKILL after `killGraceMs`. */
  timeoutMs: number;
  /** Aborting it kills the command the same way as a timeout. */
  signal: AbortSignal;
  sandbox: SandboxMode;
  /** Grace between SIGTERM and SIGKILL (default 2000 ms). */
  killGraceMs?: number;
  limits?: CommandLimits;
  capture?: OutputCaptureOptions;
  /** Live output: each decoded, ANSI-stripped piece as it arrives (before capping). */
  onOutput?: (text: string) => void;
  /**
   * Disk budget of the home while the command runs: measured every `everyMs` (default 1000 ms);
   * once usage passes `bytes` the command is killed like on a timeout (`overBudgetBytes` set).
   */
  diskBudget?: { bytes: number; everyMs?: number };
  /** File name (without .log) for the full-output log, when one is needed. */
  logName: string;
  /** Extra read-only binds and symbolic links inside bubblewrap (ignored without a sandbox). */
  roBinds?: BwrapOptions['roBinds'];
  symlinks?: BwrapOptions['symlinks'];
}

export interface CommandRun {
  /** Exit status; 124 after a timeout (as GNU timeout), 128 + n when killed by signal n. */
  exitCode: number;
  /** Signal that ended the main process, if any. */
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** Killed because the home passed `diskBudget` while it ran (bytes measured then). */
  overBudgetBytes?: number;
  durationMs: number;
  output: CapturedOutput;
}

/** COMPUTER_SANDBOX=none: `argv` (with the fd-closing prologue) as its own session, stdout/stderr piped. */
function spawnUnsandboxed(argv: string[], cwd: string, env: Record<string, string>) {
  return spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
}

/** Wait after the main process exits for stdout/stderr to close before closing them ourselves. */
const PIPE_DRAIN_MS = 1000;

/**
 * Run `o.command` and collect its output.
 * @throws Error when the process cannot be spawned or the env is invalid (never for a non-zero exit).
 */
export async function runCommand(o: RunCommandOptions): Promise<CommandRun> {
  const env = commandEnvironment(o.home, o.env);
  const inner = limitedShellArgv(o.command, o.limits ?? DEFAULT_LIMITS);
  const sb = o.sandbox;
  if (sb.kind === 'bwrap' && sb.user) {
    ensureHomeReachable(o.home, sb.user.dataDir, sb.user.account);
    await chownHome(o.home, sb.user.account);
  }
  const capture = new OutputCapture({ ...o.capture, onText: o.onOutput ?? o.capture?.onText });
  const grace = o.killGraceMs ?? 2000;
  const started = performance.now();

  const child = sb.kind === 'bwrap'
    ? spawnBwrap(
        bwrapInvocation(
          { bwrapPath: sb.bwrapPath, home: o.home, cwd: o.cwd, network: sb.network, tmpBytes: sb.tmpBytes, env, argv: inner, roBinds: o.roBinds, symlinks: o.symlinks },
          seccompSupported() ? seccompProgram() : null,
        ),
        { user: sb.user?.account, detached: true },
      )
    : spawnUnsandboxed(closeInheritedFdsArgv(2, inner), o.cwd, env);

  let timedOut = false;
  let aborted = false;
  let exited = false;
  let killTimer: NodeJS.Timeout | undefined;
  let drainTimer: NodeJS.Timeout | undefined;

  const killGroup = (sig: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  const terminate = () => {
    if (exited || killTimer) return;
    killGroup('SIGTERM');
    killTimer = setTimeout(() => killGroup('SIGKILL'), grace);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    terminate();
  }, o.timeoutMs);
  const onAbort = () => {
    aborted = true;
    terminate();
  };
  if (o.signal.aborted) onAbort();
  else o.signal.addEventListener('abort', onAbort, { once: true });
  let overBudgetBytes: number | undefined;
  const budget = o.diskBudget;
  let budgetTimer: NodeJS.Timeout | undefined;
  if (budget) {
    // One measurement at a time; the next one starts `everyMs` after the last ended.
    const check = async () => {
      const used = await measureHome(o.home, 10_000);
      if (exited) return;
      if (used !== null && used > budget.bytes) {
        overBudgetBytes = used;
        terminate();
        return;
      }
      budgetTimer = setTimeout(check, budget.everyMs ?? 1000);
    };
    budgetTimer = setTimeout(check, budget.everyMs ?? 1000);
  }

  child.stdout.on('data', (c: Buffer) => capture.write(c));
  child.stderr.on('data', (c: Buffer) => capture.write(c));

  let exitCode: number | null = null;
  let exitSignal: NodeJS.Signals | null = null;
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, sig) => {
        exited = true;
        exitCode = code;
        exitSignal = sig;
        // Anything the command left running in its group goes with it.
        killGroup('SIGKILL');
        drainTimer = setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          resolve();
        }, PIPE_DRAIN_MS);
      });
      child.once('close', () => resolve());
    });
  } finally {
    clearTimeout(timer);
    clearTimeout(budgetTimer);
    clearTimeout(killTimer);
    clearTimeout(drainTimer);
    o.signal.removeEventListener('abort', onAbort);
  }
  const durationMs = performance.now() - started;
  const output = await capture.finish(o.home, o.logName);
  const sig = exitSignal as NodeJS.Signals | null;
  const code = timedOut ? 124 : (exitCode ?? (sig ? 128 + (osConstants.signals[sig] ?? 0) : 1));
  return { exitCode: code, signal: sig, timedOut, aborted, durationMs, output, ...(overBudgetBytes !== undefined ? { overBudgetBytes } : {}) };
}
