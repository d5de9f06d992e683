/**
 * What every computer tool of one turn is built with (passed in by the family creator; no globals).
 */
import type { Config } from '../../config.js';
import type { SandboxMode } from './sandbox/run-command.js';
import type { SkillCommandSetup } from '../../skills/command-setup.js';
import { keepHead } from '../../runtime/text-cut.js';
import type { HomeLockTarget } from './home-lock.js';

export interface ComputerToolDeps {
  /** Absolute path of the agent home (created on first use by `resolveInHome`). */
  home: string;
  /** The home lock across instances (several instances on Postgres), keyed by agent id; absent: in-process only. */
  across?: HomeLockTarget['across'];
  config: Config;
  /** How `command` runs; null when commands are not offered (no sandbox and not COMPUTER_SANDBOX=none). */
  sandbox: SandboxMode | null;
  /**
   * Per-command additions of the turn's enabled skills (mounts, mcporter config, secrets; see
   * src/skills/command-setup.ts), or null when the turn has none. Called once per command.
   */
  prepareCommand?: () => Promise<SkillCommandSetup | null>;
  /**
   * How a command of this turn is named to calls kept waiting for the home meanwhile (home-lock.ts
   * `HomeLockWait.holder`), e.g. `a command of background job "Nightly build" (<job id>)`; absent:
   * `a command of this agent`. The family reads it once per turn.
   */
  commandHolder?: () => Promise<string>;
}

/** Shorten `s` to one line of at most `max` characters for a label. */
export function labelText(s: string, max = 60): string {
  const first = s.trim().split('\n')[0] ?? '';
  const more = first.length > max || s.trim().includes('\n');
  return more ? `${keepHead(first, max).trimEnd()}…` : first;
}

/** How a path the model gave is shown in a label: as given, `.`/empty → the home. */
export function labelPath(p: string | undefined): string {
  const t = (p ?? '').trim();
  return t === '' || t === '.' || t === '~' ? 'home' : labelText(t, 80);
}
