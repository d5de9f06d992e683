/**
 * The environment a command sees: never the service's own (which holds the model API key, auth
 * tokens and whatever else the operator set), only a minimal fixed set plus the call's `env`.
 */

/** PATH inside the sandbox (Debian's default for a login shell). */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** `env` variable names a call may set: POSIX shell names. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Names a call may not set: they decide what runs before the resource limits or how the shell
 * starts (BASH_ENV, ENV, SHELLOPTS, BASHOPTS, PS4, PROMPT_COMMAND, IFS, exported functions
 * `BASH_FUNC_*`), what the dynamic loader injects (LD_*), or the sandbox's own layout (PATH, HOME).
 */
export const RESERVED_ENV = new Set(['BASH_ENV', 'ENV', 'PATH', 'HOME', 'SHELLOPTS', 'BASHOPTS', 'PS4', 'PROMPT_COMMAND', 'IFS', 'CDPATH', 'GLOBIGNORE']);

/** Whether a call's `env` may not set `name` (see {@link RESERVED_ENV}; also every LD_* and BASH_FUNC_*). */
export function isReservedEnvName(name: string): boolean {
  return RESERVED_ENV.has(name) || name.startsWith('LD_') || name.startsWith('BASH_FUNC_');
}

/**
 * The environment of one command: PATH, HOME (the agent home), LANG, TERM, then the call's `env`
 * (which may override LANG and TERM, never a reserved name).
 * @throws Error naming the first variable whose name is not a shell name or is reserved, or whose
 *   value has a NUL.
 */
export function commandEnvironment(home: string, callEnv: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: SANDBOX_PATH,
    HOME: home,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
  };
  for (const [name, value] of Object.entries(callEnv)) {
    if (!ENV_NAME.test(name)) throw new Error(`env: ${JSON.stringify(name)} is not a valid variable name (letters, digits, _; not starting with a digit)`);
    if (isReservedEnvName(name)) throw new Error(`env: ${name} cannot be set for a command (reserved: ${[...RESERVED_ENV].join(', ')}, LD_*, BASH_FUNC_*); remove it from env — to use a startup script, source it in the command itself`);
    if (value.includes('\0')) throw new Error(`env: the value of ${name} contains a NUL character`);
    env[name] = value;
  }
  return env;
}
