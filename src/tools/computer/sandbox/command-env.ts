/**
 * The environment a command sees: never the service's own (which holds the model API key, auth
 * tokens and whatever else the operator set), only a minimal fixed set plus the call's `env`.
 */

/** PATH inside the sandbox (Debian's default for a login shell). */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** `env` variable names a call may set: POSIX shell names. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The environment of one command: PATH, HOME (the agent home), LANG, TERM, then the call's `env`
 * (which may override them).
 * @throws Error naming the first variable whose name is not a shell name or whose value has a NUL.
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
    if (value.includes('\0')) throw new Error(`env: the value of ${name} contains a NUL character`);
    env[name] = value;
  }
  return env;
}
