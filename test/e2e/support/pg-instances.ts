/**
 * Real service processes (src/main.ts) on one real Postgres, for two-instance tests: one scripted
 * Responses server, one fresh schema (or a database the test brings), each instance in its own
 * temporary DATA_DIR on a free loopback port. Registers `beforeAll` (model, database, env) and
 * `afterAll` (SIGKILL every instance still running, close the model, delete the folders) in the
 * calling describe block; instances are started by the tests with `start`.
 *
 * ```ts
 * const pg = usePgInstances({ name: 'approvals', env: { TURN_LEASE_MS: '3000' } });
 * it('…', async () => { const [a, b] = await Promise.all([pg.start('a'), pg.start('b')]); … });
 * ```
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../../support/scripted-responses-server.js';
import { freshSchema } from '../../support/postgres.js';
import { freePort, spawnService, waitHealthy, type Child } from './child.js';

/** One running instance: its base URL and process. */
export interface PgInstance {
  url: string;
  child: Child;
}

export interface PgInstances {
  readonly model: ScriptedResponsesServer;
  /** The environment every instance gets (DATABASE_URL, model, shared stream-token secret, …). */
  readonly env: Record<string, string>;
  /** Every instance started so far. */
  readonly children: Child[];
  /**
   * Start an instance named `name` and wait until it is healthy.
   * @param opts.env added to {@link env}; `opts.prepare` runs on its DATA_DIR before it starts.
   */
  start(name: string, opts?: { env?: Record<string, string>; prepare?: (dataDir: string) => void }): Promise<PgInstance>;
  /** A temporary folder deleted after the block. */
  tempDir(prefix: string): string;
}

/**
 * @param opts.name folder prefix of the instances' DATA_DIRs.
 * @param opts.env added to the base environment.
 * @param opts.databaseUrl the database to use [a fresh schema in TEST_DATABASE_URL].
 */
export function usePgInstances(opts: { name: string; env?: Record<string, string>; databaseUrl?: () => Promise<string> }): PgInstances {
  const dirs: string[] = [];
  const children: Child[] = [];
  let model: ScriptedResponsesServer | undefined;
  let env: Record<string, string> | undefined;
  const tempDir = (prefix: string) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  beforeAll(async () => {
    model = await startScriptedResponsesServer();
    const url = opts.databaseUrl ? await opts.databaseUrl() : (await freshSchema()).url;
    env = {
      DATABASE_URL: url,
      STREAM_TOKEN_SECRET: 'a-shared-secret-of-32-characters',
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: 'k',
      MODEL: 'm',
      MODEL_MAX_RETRIES: '0',
      LOG_LEVEL: 'warn',
      ...opts.env,
    };
  }, 200_000);
  afterAll(async () => {
    for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    await model?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const ready = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('usePgInstances: read it inside a test or a later beforeAll');
    return v;
  };
  return {
    get model() { return ready(model); },
    get env() { return ready(env); },
    children,
    tempDir,
    async start(name, o = {}) {
      const port = await freePort();
      const dataDir = tempDir(`pg-${opts.name}-${name}-`);
      o.prepare?.(dataDir);
      const child = spawnService({ ...ready(env), ...o.env, DATA_DIR: dataDir, PORT: String(port) });
      children.push(child);
      const url = `http://127.0.0.1:${port}`;
      await waitHealthy(url, child, 120_000);
      return { url, child };
    },
  };
}
