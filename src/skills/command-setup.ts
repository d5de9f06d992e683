/**
 * What a `command` of a turn with enabled skills gets on top of the plain sandbox
 * ({@link prepareSkillCommand}):
 * - each enabled skill's folder bound read-only at `/skills/<name>`;
 * - node and mcporter (sandbox-tools.ts) on PATH (through the sandbox's /etc/profile.d, so also in
 *   the login shells mcporter starts stdio servers with), NODE_PATH set;
 * - when the turn has MCP servers: a fresh mcporter config (mcporter-config.ts) written 0600 to
 *   `DATA_DIR/run/mcporter/<random>.json`, bound read-only at {@link SANDBOX_MCPORTER_CONFIG}
 *   and named by `MCPORTER_CONFIG`, removed by `dispose()` after the command; and the secrets
 *   those servers name, read from SKILL_SECRETS for this command, in its environment only.
 * The caller replaces every secret value in the output with `[redacted:NAME]` (`secrets`).
 */
import { randomUUID } from 'node:crypto';
import { chown, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import { mcporterConfig, secretNames } from './mcporter-config.js';
import { loadSecrets, type Secrets } from './secrets.js';
import { hostToolsBin, profileDir, SANDBOX_BIN, SANDBOX_NODE, SANDBOX_NODE_MODULES, SANDBOX_TOOLS_ROOT, toolLocations } from './sandbox-tools.js';
import type { TurnSkills } from './turn-skills.js';

/** Where the config appears inside the sandbox. */
export const SANDBOX_MCPORTER_CONFIG = `${SANDBOX_TOOLS_ROOT}/mcporter.json`;

export interface SkillCommandSetup {
  /** Read-only binds (host source → sandbox target). Empty without a sandbox. */
  roBinds: { source: string; target: string }[];
  /** Symbolic links created inside the sandbox (link → target). */
  symlinks: { link: string; target: string }[];
  /** Variables for the command's environment (secrets included: never put them on a command line). */
  env: Record<string, string>;
  /** Folder to put first on the command's PATH in the command line itself (null: the sandbox's profile does it). */
  pathPrefix: string | null;
  /** Secret values to redact from the output. */
  secrets: Secrets;
  /** Host path of the mcporter config, when one was written. */
  configPath?: string;
  /** Remove the config file. Never throws. */
  dispose(): Promise<void>;
}

/**
 * The setup for one command, or null when the turn has no skills.
 * @param sandboxed false for COMPUTER_SANDBOX=none (host paths instead of binds).
 * @param owner uid/gid that must be able to read the config (the user running the sandbox), if not the service's.
 * @param readSecrets the SKILL_SECRETS values (default: the file as it is now); a service passes
 *   its SkillSecrets (src/skills/secrets.ts), which keeps the previous values when an edit is refused.
 * @throws Error when SKILL_SECRETS cannot be read and there are no previous values (the command is not run).
 */
export async function prepareSkillCommand(
  t: TurnSkills,
  config: Config,
  sandboxed: boolean,
  owner?: { uid: number; gid: number },
  readSecrets: () => Promise<Secrets> = () => loadSecrets(config.SKILL_SECRETS),
): Promise<SkillCommandSetup | null> {
  if (t.skills.length === 0) return null;
  const tools = toolLocations();
  const roBinds: SkillCommandSetup['roBinds'] = [];
  const symlinks: SkillCommandSetup['symlinks'] = [];
  const env: Record<string, string> = { MCPORTER_DISABLE_KEEPALIVE: '*' };
  let pathPrefix: string | null = null;
  if (sandboxed) {
    const profile = await profileDir(config.DATA_DIR);
    for (const s of t.skills) roBinds.push({ source: s.dir, target: `/skills/${s.name}` });
    roBinds.push({ source: process.execPath, target: SANDBOX_NODE }, { source: tools.nodeModules, target: SANDBOX_NODE_MODULES });
    symlinks.push({ link: `${SANDBOX_BIN}/mcporter`, target: `${SANDBOX_NODE_MODULES}/${tools.mcporterCli}` });
    env.NODE_PATH = SANDBOX_NODE_MODULES;
    if (profile) roBinds.push({ source: profile, target: '/etc/profile.d' });
    else pathPrefix = SANDBOX_BIN;
  } else {
    env.NODE_PATH = tools.nodeModules;
    pathPrefix = await hostToolsBin(config.DATA_DIR);
  }
  const secrets: Secrets = new Map();
  let configPath: string | undefined;
  if (t.servers.length > 0) {
    const all = await readSecrets();
    for (const s of t.servers) {
      for (const name of secretNames(s.decl)) {
        const value = all.get(name);
        if (value !== undefined) secrets.set(name, value);
      }
    }
    const dir = path.join(config.DATA_DIR, 'run', 'mcporter');
    await mkdir(dir, { recursive: true, mode: 0o711 });
    configPath = path.join(dir, `${randomUUID()}.json`);
    await writeFile(configPath, JSON.stringify(mcporterConfig(t.servers.map((s) => s.decl)), null, 2), { mode: 0o600, flag: 'wx' });
    if (owner) await chown(configPath, owner.uid, owner.gid);
    if (sandboxed) {
      roBinds.push({ source: configPath, target: SANDBOX_MCPORTER_CONFIG });
      env.MCPORTER_CONFIG = SANDBOX_MCPORTER_CONFIG;
    } else {
      env.MCPORTER_CONFIG = configPath;
    }
    for (const [name, value] of secrets) env[name] = value;
  }
  const file = configPath;
  return {
    roBinds,
    symlinks,
    env,
    pathPrefix,
    secrets,
    configPath,
    dispose: async () => {
      if (file) await rm(file, { force: true }).catch(() => {});
    },
  };
}
