/**
 * `command` {command, workdir?, timeout?, env?}: run `bash -lc <command>` in the agent home,
 * inside the bubblewrap sandbox (see sandbox/). The result text starts with
 * `exit_code=<n> duration=<s>s`; a non-zero exit is a normal result, not a tool error. A timeout
 * (default 180 s, at most COMPUTER_MAX_TIMEOUT_S) kills the command's processes and says so;
 * an abort (turn cancelled) kills them and fails the call. While it runs, its output streams as
 * `tool.progress` events (live-output.ts: ≤ 4 per second, ≤ 2 KiB each, secrets scrubbed).
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { defineWorkerTool, textResult, type AgentToolResult } from '../../../runtime/tool.js';
import { labelText, type ComputerToolDeps } from '../deps.js';
import { withHomeLock } from '../home-lock.js';
import { resolveInHome } from '../home.js';
import { runCommand, type SandboxMode } from '../sandbox/run-command.js';
import { DEFAULT_LIMITS } from '../sandbox/limits.js';
import { lastHomeUsage, overBudgetNote, updateHomeUsage } from '../home-budget.js';
import { redactSecrets, type Secrets } from '../../../skills/secrets.js';
import { LiveOutput } from '../live-output.js';

/**
 * Replace secret values in the full-output log the command left in the home. Runs under the
 * exclusive home lock after every process of the command has ended, so nothing races the rewrite.
 */
async function redactFileInHome(home: string, relative: string, secrets: Secrets): Promise<void> {
  const file = await resolveInHome(home, relative);
  if (!file.exists) return;
  const text = await readFile(file.real, 'utf8');
  const clean = redactSecrets(text, secrets);
  if (clean !== text) await writeFile(file.real, clean);
}

/** Characters of the call's output budget kept for the status lines and the omission marker. */
const COMMAND_OUTPUT_RESERVE = 1_000;

/** Default command timeout, seconds. */
export const DEFAULT_COMMAND_TIMEOUT_S = 180;
/** SIGTERM → SIGKILL grace, ms. */
export const KILL_GRACE_MS = 2000;

const schema = z.object({
  command: z.string().min(1).describe('Shell command, run with bash -lc in your home folder'),
  workdir: z.string().optional().describe('Working folder, relative to the home (default: the home)'),
  timeout: z.number().positive().optional().describe(`Time limit in seconds (default ${DEFAULT_COMMAND_TIMEOUT_S})`),
  env: z.record(z.string(), z.string()).optional().describe('Extra environment variables for this command'),
});

export interface CommandDetails {
  exitCode: number;
  durationMs: number;
  timedOut: boolean;
  timeoutS: number;
  /** Home-relative path of the full output log, when the output was capped. */
  logPath?: string;
  outputChars: number;
  omittedChars: number;
  sandboxed: boolean;
  /** Disk usage of the home after the command, bytes (when COMPUTER_HOME_MAX_MB is set and du worked). */
  homeUsedBytes?: number;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

export function commandTool(deps: ComputerToolDeps, sandbox: SandboxMode) {
  const maxTimeoutS = deps.config.COMPUTER_MAX_TIMEOUT_S;
  const defaultTimeoutS = Math.min(DEFAULT_COMMAND_TIMEOUT_S, maxTimeoutS);
  const isolation = sandbox.kind === 'bwrap'
    ? `in a sandbox: only your home folder is writable, /tmp is private${sandbox.network ? '' : ', there is no network access'}`
    : 'WITHOUT a sandbox (the operator disabled it)';
  return defineWorkerTool({
    name: 'command',
    description: `Run a shell command (bash -lc) in your home folder, ${isolation}. Output (stdout and stderr) is capped at 50,000 characters; the full output of longer runs is saved to a log file in the home. Default time limit ${defaultTimeoutS} s, max ${maxTimeoutS} s. Background processes are killed when the command ends.`,
    schema,
    executionMode: 'sequential',
    isDestructive: true,
    // The runtime's per-tool timeout must not cut the command's own (longer) time limit.
    timeoutMs: (maxTimeoutS + KILL_GRACE_MS / 1000 + 30) * 1000,
    describeActivity: (p) => `Running \`${labelText(p.command)}\``,
    describeFailedActivity: (p, f) =>
      f.kind === 'cancelled' ? `Stopped \`${labelText(p.command)}\`` : f.kind === 'timed_out' ? `Timed out running \`${labelText(p.command)}\`` : `Could not run \`${labelText(p.command)}\``,
    describeCompletedActivity: (p, r: AgentToolResult<CommandDetails>) => {
      const d = r.details;
      if (!d) return undefined;
      if (d.timedOut) return `Ran \`${labelText(p.command)}\` (timed out after ${d.timeoutS} s)`;
      return `Ran \`${labelText(p.command)}\` (exit ${d.exitCode}, ${seconds(d.durationMs)} s)`;
    },
    execute: async (p, ctx) =>
      withHomeLock(deps, 'exclusive', { signal: ctx.signal, emit: ctx.emit, holder: await deps.commandHolder?.() }, async () => {
        const cwd = await resolveInHome(deps.home, p.workdir ?? '.', { use: 'workdir' });
        if (!cwd.exists || !(await stat(cwd.real)).isDirectory()) throw new Error(`workdir ${p.workdir} is not a folder in the home`);
        const timeoutS = Math.min(p.timeout ?? defaultTimeoutS, maxTimeoutS);
        // Skills: mounts, node + mcporter on PATH, a fresh mcporter config and secrets (removed after).
        const setup = deps.prepareCommand ? await deps.prepareCommand() : null;
        const secrets = setup?.secrets ?? new Map<string, string>();
        const live = new LiveOutput({
          emit: ctx.emit,
          scrub: (text) => redactSecrets(text, secrets),
          holdBack: Math.max(0, ...[...secrets.values()].map((v) => v.length - 1)),
        });
        try {
          const run = await runCommand({
            // On the same line, so the command's own line numbers stay as written.
            command: setup?.pathPrefix ? `export PATH="${setup.pathPrefix}:$PATH"; ${p.command}` : p.command,
            home: cwd.home,
            cwd: cwd.real,
            env: setup ? { ...p.env, ...setup.env } : p.env,
            roBinds: setup?.roBinds,
            symlinks: setup?.symlinks,
            timeoutMs: timeoutS * 1000,
            killGraceMs: KILL_GRACE_MS,
            signal: ctx.signal,
            sandbox,
            limits: { ...DEFAULT_LIMITS, maxDataBytes: deps.config.COMPUTER_MEMORY_LIMIT_MB * 1024 * 1024 },
            // Head + tail of the output within the call's budget, leaving room for the status
            // lines and the omission marker (which names the saved full log).
            capture: { maxChars: Math.max(500, ctx.outputMaxChars - COMMAND_OUTPUT_RESERVE) },
            // A home already over the budget may still be cleaned up: then only growth past where it was is stopped.
            diskBudget: deps.config.COMPUTER_HOME_MAX_MB > 0 ? { bytes: Math.max(deps.config.COMPUTER_HOME_MAX_MB * 1024 * 1024, lastHomeUsage(cwd.home) ?? 0) } : undefined,
            logName: `${new Date().toISOString().replace(/[:.]/g, '-')}-${ctx.callId.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 40) || 'call'}`,
            onOutput: (text) => live.write(text),
          });
          live.finish();
          if (run.aborted && !run.timedOut) {
            throw new Error(`command aborted after ${seconds(run.durationMs)} s (turn cancelled or tool timed out); its processes were killed`);
          }
          const head = [`exit_code=${run.exitCode} duration=${seconds(run.durationMs)}s${run.timedOut ? ' timed_out=true' : ''}`];
          if (p.timeout !== undefined && p.timeout > maxTimeoutS) head.push(`[timeout lowered to the maximum of ${maxTimeoutS} s]`);
          if (run.timedOut) head.push(`[command timed out after ${timeoutS} s; all of its processes were killed]`);
        if (run.overBudgetBytes !== undefined) {
          head.push(`[command killed: the home passed its disk budget while it ran (${(run.overBudgetBytes / 1024 / 1024).toFixed(1)} MiB used of ${deps.config.COMPUTER_HOME_MAX_MB} MiB, COMPUTER_HOME_MAX_MB); all of its processes were killed — delete files to get back under the budget]`);
        }
          // Still under the exclusive lock: nothing else writes the home while it is measured.
          const usage = await updateHomeUsage(cwd.home, deps.config.COMPUTER_HOME_MAX_MB);
          if (usage?.over) head.push(overBudgetNote(usage));
          if (secrets.size > 0 && run.output.logPath) await redactFileInHome(cwd.home, run.output.logPath, secrets);
          const body = run.output.text === '' ? '(no output)' : redactSecrets(run.output.text, secrets);
          const details: CommandDetails = {
            exitCode: run.exitCode,
            durationMs: Math.round(run.durationMs),
            timedOut: run.timedOut,
            timeoutS,
            logPath: run.output.logPath,
            outputChars: run.output.totalChars,
            omittedChars: run.output.omittedChars,
            sandboxed: sandbox.kind === 'bwrap',
            homeUsedBytes: usage?.usedBytes,
          };
          return textResult(`${head.join('\n')}\n${body}`, details);
        } finally {
          live.finish();
          await setup?.dispose();
        }
      }),
  });
}
