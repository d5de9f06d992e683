/**
 * The environment `npm run demo` starts the service with: the user's own environment, so every
 * variable of README "Configuration" applies as usual (AUTH_TOKENS, STREAM_TOKEN_SECRET,
 * WEBHOOK_SECRET / WEBHOOK_URL / WEBHOOK_ALLOW_HOSTS, DEFAULT_TOOLS, COMPUTER_*, LOG_LEVEL, PORT
 * for `--serve`, …), with what the demo needs forced over it:
 * - the bundled scripted model: OPENAI_BASE_URL (its local URL), OPENAI_API_KEY, MODEL,
 *   MODEL_API=responses;
 * - the data: DATA_DIR is the demo's temporary folder and DATABASE_URL is removed, so nothing is
 *   written to the user's data folder or database;
 * - HOST=127.0.0.1 (a scripted model is not served beyond this machine).
 */

/**
 * The service environment of the demo (see the module comment).
 * @param modelURL the scripted Responses server's base URL (`…/v1`).
 * @param dataDir the demo's temporary data folder.
 * @param defaults values used only when the user's environment does not set them (e.g. LOG_LEVEL).
 * @param forced further values that win over the user's environment (e.g. PORT=0 for the one-shot demo).
 */
export function demoEnv(
  modelURL: string,
  dataDir: string,
  defaults: Record<string, string> = {},
  forced: Record<string, string> = {},
  user: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const { DATABASE_URL: _database, ...own } = user;
  const env: NodeJS.ProcessEnv = { ...defaults };
  for (const [k, v] of Object.entries(own)) if (v !== undefined && v.trim() !== '') env[k] = v;
  return {
    ...env,
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    OPENAI_BASE_URL: modelURL,
    OPENAI_API_KEY: 'scripted',
    MODEL: 'scripted-demo-model',
    MODEL_API: 'responses',
    ...forced,
  };
}

/** The first bearer token of AUTH_TOKENS in `env` (comma-separated), or undefined when none is set. */
export function firstToken(env: NodeJS.ProcessEnv): string | undefined {
  return env.AUTH_TOKENS?.split(',').map((t) => t.trim()).find((t) => t !== '');
}
