/**
 * The computer family: `command` (sandboxed shell) and the file tools (`read_file`, `write_file`,
 * `edit_file`, `apply_patch`, `ls`, `find`, `grep`, and `reply_attachment` when the service has an
 * attachment store) working in the agent home
 * (`TurnContext.agentHome`, created on first use).
 *
 * - Offered in main and scheduled turns whose families include `computer`; never in workflow task
 *   turns.
 * - `command` needs a sandbox: bubblewrap is probed once (cached); when it cannot start, the file
 *   tools are still offered, `command` is not, and the reason is reported as `unavailable` —
 *   unless the operator set COMPUTER_SANDBOX=none, which runs commands without isolation (still
 *   with a scrubbed environment) and deserves the loud start-up warning from
 *   {@link computerSandboxWarning}.
 */
import { hostPathFilter } from './host-paths.js';
import path from 'node:path';
import type { Config } from '../../config.js';
import type { TurnContext } from '../../assembly/context.js';
import type { FamilyCreator, FamilyResult } from '../../assembly/family.js';
import type { AnyWorkerAgentTool } from '../../runtime/tool.js';
import type { ComputerToolDeps } from './deps.js';
import { DEFAULT_BWRAP_PATH, probeBwrap } from './sandbox/probe.js';
import { lookupSandboxUser, runningAsRoot, type SandboxUser } from './sandbox/sandbox-user.js';
import { seccompSupported } from './sandbox/seccomp.js';
import type { SandboxMode } from './sandbox/run-command.js';
import { applyPatchTool } from './tools/apply-patch.js';
import { commandTool } from './tools/command.js';
import { editFileTool } from './tools/edit-file.js';
import { findTool } from './tools/find.js';
import { grepTool } from './tools/grep.js';
import { lsTool } from './tools/ls.js';
import { readFileTool } from './tools/read-file.js';
import { writeFileTool } from './tools/write-file.js';
import { replyAttachmentTool } from './tools/reply-attachment.js';
import { prepareSkillCommand } from '../../skills/command-setup.js';
import { turnSecrets } from '../../skills/turn-secrets.js';
import { turnSkills } from '../../skills/turn-skills.js';
import { quoteForDisplay } from '../../unsafe-chars.js';

export interface ComputerFamilyOptions {
  /** bubblewrap binary (default /usr/bin/bwrap); tests point it elsewhere to simulate its absence. */
  bwrapPath?: string;
}

/**
 * How commands run under `config`, or why they cannot. As root, bwrap runs as the host user
 * COMPUTER_SANDBOX_USER (sandbox-user.ts); without that user `command` is not offered.
 */
export async function resolveSandbox(config: Config, bwrapPath: string = DEFAULT_BWRAP_PATH): Promise<{ mode: SandboxMode } | { reason: string }> {
  if (config.COMPUTER_SANDBOX === 'none') return { mode: { kind: 'none' } };
  let user: SandboxUser | undefined;
  if (runningAsRoot()) {
    const found = await lookupSandboxUser(config.COMPUTER_SANDBOX_USER);
    if ('reason' in found) return { reason: `command is not offered: ${found.reason}` };
    user = found;
  }
  const probe = await probeBwrap(bwrapPath, user);
  if (!probe.ok) return { reason: `command is not offered: ${probe.reason}` };
  return {
    mode: {
      kind: 'bwrap',
      bwrapPath,
      network: config.COMPUTER_NETWORK === 'on',
      tmpBytes: probe.tmpfsSize ? config.COMPUTER_TMP_MAX_MB * 1024 * 1024 : 0,
      ...(user ? { user: { account: user, dataDir: config.DATA_DIR } } : {}),
    },
  };
}

/**
 * The warning to log at start-up (level warn or above) when commands will run without isolation,
 * or null when they are sandboxed.
 */
export function computerSandboxWarning(config: Config): string | null {
  if (config.COMPUTER_SANDBOX !== 'none') return null;
  return 'WARNING: COMPUTER_SANDBOX=none: the computer family runs shell commands WITHOUT A SANDBOX. Commands get a scrubbed environment, but can read and write anything this service user can and reach the network. Use only on a machine dedicated to this service.';
}

/**
 * Everything about the computer family worth a start-up warning: running unsandboxed
 * ({@link computerSandboxWarning}), or bubblewrap unable to start (then `command` will not be
 * offered). Probes bubblewrap (the result is cached for the turns that follow). Never throws.
 */
export async function computerStartupWarnings(config: Config, bwrapPath: string = DEFAULT_BWRAP_PATH): Promise<string[]> {
  const unsandboxed = computerSandboxWarning(config);
  if (unsandboxed) return [unsandboxed];
  const sandbox = await resolveSandbox(config, bwrapPath);
  if ('reason' in sandbox) return [`computer family: ${sandbox.reason}`];
  const probe = await probeBwrap(bwrapPath, 'mode' in sandbox && sandbox.mode.kind === 'bwrap' ? sandbox.mode.user?.account : undefined);
  if (!seccompSupported()) {
    return [`computer family: no seccomp filter for this machine's architecture (${process.arch}); commands run without one (x64 and arm64 have it)`];
  }
  if (probe.ok && !probe.tmpfsSize && config.COMPUTER_TMP_MAX_MB > 0) {
    return [`computer family: this bubblewrap does not support --size (needs bubblewrap 0.7 or later), so COMPUTER_TMP_MAX_MB is not applied: the sandbox's /tmp is limited only by memory`];
  }
  return [];
}

/**
 * How a command of the turn `ctx` is named to other calls waiting for the agent's home: `a command
 * of background job "<title>" (<job id>)` in a job's turn (the title quoted with quoteForDisplay;
 * the id alone when the job cannot be read), else `a command of turn <turn id>`.
 */
export async function commandHolder(ctx: Pick<TurnContext, 'turnId' | 'kind' | 'origin' | 'services'>): Promise<string> {
  if (ctx.kind === 'background_job' && ctx.origin.type === 'background_job') {
    const jobId = ctx.origin.job_id;
    const job = await ctx.services.jobs?.get(jobId).catch(() => undefined);
    return job ? `a command of background job ${quoteForDisplay(job.title)} (${jobId})` : `a command of background job ${jobId}`;
  }
  return `a command of turn ${ctx.turnId}`;
}

/** Build a computer family creator (production uses {@link computerFamily}). */
export function createComputerFamily(options: ComputerFamilyOptions = {}): FamilyCreator {
  return {
    family: 'computer',
    async create(ctx: TurnContext): Promise<FamilyResult> {
      if (ctx.kind === 'workflow_task') return { unavailable: 'not allowed in workflow task turns' };
      if (!ctx.families.includes('computer')) return { unavailable: 'not enabled for this turn' };
      const sandbox = await resolveSandbox(ctx.config, options.bwrapPath);
      // The home is created by the first tool call that needs it, not here (a tools preview
      // assembles the family too).
      const mode = 'mode' in sandbox ? sandbox.mode : null;
      // How this turn's commands are named to waiting calls: read once per turn (a job's title does
      // not change), not once per command.
      let holder: Promise<string> | undefined;
      const deps: ComputerToolDeps = {
        home: path.resolve(ctx.agentHome),
        across: ctx.services.homeLocks ? { lock: ctx.services.homeLocks, agentId: ctx.agentId } : undefined,
        config: ctx.config,
        sandbox: mode,
        // The user running bwrap (when the service is root) must be able to read the mcporter config.
        prepareCommand: async () =>
          // Read through the turn's TurnSecrets, so the turn's redaction knows every value a command got.
          prepareSkillCommand(await turnSkills(ctx), ctx.config, mode?.kind === 'bwrap', mode?.kind === 'bwrap' ? mode.user?.account : undefined, () =>
            turnSecrets(ctx).read(),
          ),
        commandHolder: () => (holder ??= commandHolder(ctx)),
      };
      const tools: AnyWorkerAgentTool[] = [];
      if ('mode' in sandbox) tools.push(commandTool(deps, sandbox.mode));
      tools.push(
        readFileTool(deps),
        writeFileTool(deps),
        editFileTool(deps),
        applyPatchTool(deps),
        lsTool(deps),
        findTool(deps),
        grepTool(deps),
      );
      if (ctx.services.attachments) tools.push(replyAttachmentTool(deps, ctx.services.attachments));
      // Results and errors of the turn's tools show `~`, never the host path of the home.
      const outputFilter = hostPathFilter(deps.home);
      return 'reason' in sandbox ? { tools, unavailable: sandbox.reason, outputFilter } : { tools, outputFilter };
    },
  };
}

/** The computer family as registered in the assembler. */
export const computerFamily: FamilyCreator = createComputerFamily();
