/**
 * The start-up checks of the skill settings: SKILLS_DIR must be a readable folder and
 * SKILL_SECRETS a readable file, else the service refuses to start (README "Configuration": a bad
 * value stops the service with one `refusing to start:` line and exit code 2) instead of running
 * without the built-in skills or failing every command of a skill with MCP servers later.
 */
import { readdir } from 'node:fs/promises';
import { ConfigError } from '../config.js';
import { settingForDisplay } from '../unsafe-chars.js';
import { loadSecrets, MalformedSecretsError, ShortSecretError } from './secrets.js';

/** Plain words for the file-system error codes a path setting runs into; others keep their message. */
function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const cause = e.cause as NodeJS.ErrnoException | undefined;
  const code = e.code ?? cause?.code;
  const words: Record<string, string> = {
    ENOENT: 'no such file or directory',
    ENOTDIR: 'it is a file, not a folder',
    EISDIR: 'it is a folder, not a file',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
  };
  return code && words[code] ? `${code}: ${words[code]}` : (cause?.message ?? e.message);
}

/**
 * The refusal of a SKILLS_DIR that cannot be listed.
 * @returns ConfigError, one line: `SKILLS_DIR=<dir>: cannot read it as the folder of built-in skills (<CODE>: <reason>); …`
 *   (`<dir>` quoted, unsafe characters as `\uXXXX`, when it has any: {@link settingForDisplay}).
 */
export function skillsDirError(dir: string, err: unknown): ConfigError {
  return new ConfigError([
    `SKILLS_DIR=${settingForDisplay(dir)}: cannot read it as the folder of built-in skills (${reason(err)}); point it at a folder holding one folder per skill, or unset SKILLS_DIR`,
  ]);
}

/**
 * Check both settings (each only when set); SKILL_SECRETS is read once here and again for every
 * command that needs its values, so edits to the file apply without a restart (an edit refused
 * then keeps the values accepted before: src/skills/secrets.ts SkillSecrets).
 * @param dirs.skillsDir SKILLS_DIR, resolved.
 * @param dirs.secretsFile SKILL_SECRETS, resolved.
 * @param dirs.readSecrets how the file is read, when `secretsFile` is set (default: src/skills/secrets.ts
 *   loadSecrets of it); a service passes the first read of its SkillSecrets, so the values it then uses
 *   are those of the file checked here. It must throw as loadSecrets does.
 * @throws ConfigError one line per unusable setting, naming the variable, the path (quoted, unsafe characters as
 *   `\uXXXX`, when it has any: {@link settingForDisplay}), the reason and what to do
 *   (for SKILL_SECRETS values shorter than MIN_SKILL_SECRET_CHARS: their names — or line numbers, where
 *   src/skills/secrets.ts nameMayBeShown refuses the name — and lengths, and the minimum;
 *   for lines that are no NAME=value setting or have an empty value: their line numbers and the problem;
 *   never a line, a part of one, or a value).
 */
export async function checkSkillPaths({
  skillsDir,
  secretsFile,
  readSecrets,
}: {
  skillsDir?: string;
  secretsFile?: string;
  readSecrets?: () => Promise<unknown>;
}): Promise<void> {
  const problems: string[] = [];
  if (skillsDir) {
    await readdir(skillsDir).catch((err: unknown) => problems.push(...skillsDirError(skillsDir, err).problems));
  }
  if (secretsFile) {
    const shown = settingForDisplay(secretsFile);
    await (readSecrets ? readSecrets() : loadSecrets(secretsFile)).catch((err: unknown) =>
      problems.push(
        err instanceof ShortSecretError
          ? `SKILL_SECRETS=${shown}: ${new ShortSecretError(secretsFile, err.short).message}`
          : err instanceof MalformedSecretsError
            ? `SKILL_SECRETS=${shown}: ${new MalformedSecretsError(secretsFile, err.problems).message}`
            : `SKILL_SECRETS=${shown}: cannot read it as the secrets file (${reason(err)}); point it at a readable dotenv file (NAME=value lines), or unset SKILL_SECRETS`,
      ),
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
}
