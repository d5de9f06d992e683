/** Computer family (sandboxed command + file tools in the agent home): re-exports only. */
export { computerFamily, computerSandboxWarning, computerStartupWarnings, createComputerFamily, resolveSandbox, type ComputerFamilyOptions } from './family.js';
export { ensureHome, resolveInHome, PathRefusedError, type ResolvedPath } from './home.js';
export { probeBwrap, DEFAULT_BWRAP_PATH, type SandboxProbe } from './sandbox/probe.js';
export { runCommand, type CommandRun, type RunCommandOptions, type SandboxMode } from './sandbox/run-command.js';
export type { ComputerToolDeps } from './deps.js';
export type { CommandDetails } from './tools/command.js';
