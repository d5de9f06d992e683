/**
 * Per-home disk budget (COMPUTER_HOME_MAX_MB). The home's disk usage is measured with `du -skx`
 * (allocated blocks, symlinks not followed, one file system) on the host every second while a
 * `command` runs — the command is killed once the home passes the budget (or, when it started
 * over the budget, once it grows past where it started), see sandbox/run-command.ts — and after
 * every `command` (while the command's exclusive home lock is still held); the result is
 * remembered per home in this process. While the last measurement is over the budget, the writing
 * file tools (write_file, edit_file, apply_patch) are refused with an `Error:` telling the model
 * to delete files with a command; the command result says so too. Commands themselves still run
 * (to clean up); each file they write is limited separately (RLIMIT_FSIZE, see sandbox/limits.ts).
 */
import { execFile } from 'node:child_process';
import { SANDBOX_PATH } from './sandbox/command-env.js';

const MiB = 1024 * 1024;

/** Last measured usage in bytes, by real home path. */
const usage = new Map<string, number>();

/**
 * Measure the disk usage of `realHome` in bytes; null when `du` fails or takes longer than
 * `timeoutMs` (a home with millions of files).
 */
export function measureHome(realHome: string, timeoutMs = 10_000): Promise<number | null> {
  return new Promise((resolve) => {
    execFile('du', ['-s', '-k', '-x', '--', realHome], { env: { PATH: SANDBOX_PATH }, timeout: timeoutMs }, (err, stdout) => {
      // du exits 1 when a folder is unreadable, but still prints the total of the rest.
      const kib = Number.parseInt(String(stdout).split('\t')[0], 10);
      if (Number.isFinite(kib) && !(err && (err as { killed?: boolean }).killed)) resolve(kib * 1024);
      else resolve(null);
    });
  });
}

/** The last measured usage of `realHome` in bytes (undefined before the first measurement). */
export function lastHomeUsage(realHome: string): number | undefined {
  return usage.get(realHome);
}

/** Result of {@link updateHomeUsage}. */
export interface HomeUsage {
  usedBytes: number;
  budgetBytes: number;
  over: boolean;
}

/**
 * Measure `realHome` and remember the result (budgetMb 0 = no budget: nothing is measured).
 * @returns the usage, or null without a budget or when it could not be measured.
 */
export async function updateHomeUsage(realHome: string, budgetMb: number): Promise<HomeUsage | null> {
  if (budgetMb <= 0) return null;
  const used = await measureHome(realHome);
  if (used === null) return null;
  usage.set(realHome, used);
  return { usedBytes: used, budgetBytes: budgetMb * MiB, over: used > budgetMb * MiB };
}

/** One-line note for a command result about an over-budget home. */
export function overBudgetNote(u: HomeUsage): string {
  return `[the home is over its disk budget: ${(u.usedBytes / MiB).toFixed(1)} MiB used of ${u.budgetBytes / MiB} MiB (COMPUTER_HOME_MAX_MB); delete files with a command (e.g. rm) — write_file, edit_file and apply_patch are refused until the home is back under the budget]`;
}

/**
 * Refuse a writing file tool while the last measurement of `realHome` was over the budget.
 * @throws Error the model can act on.
 */
export function assertWithinBudget(realHome: string, budgetMb: number): void {
  if (budgetMb <= 0) return;
  const used = usage.get(realHome);
  if (used !== undefined && used > budgetMb * MiB) {
    throw new Error(`the home is over its disk budget (${(used / MiB).toFixed(1)} MiB used of ${budgetMb} MiB, measured after the last command); delete files with a command (e.g. rm) first`);
  }
}
