/**
 * A throw-away Postgres cluster of one test file alone (scripts/test-postgres.sh), for tests that
 * stop and start the database server itself — never the shared cluster of TEST_DATABASE_URL.
 * Needs the Debian PostgreSQL server binaries (present wherever TEST_DATABASE_URL is).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../e2e/support/child.js';

const run = promisify(execFile);
const SCRIPT = path.join(ROOT, 'scripts/test-postgres.sh');

export interface OwnPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string;
  /** Stop the server (fast shutdown: open connections are terminated); the data stays. */
  pause(): Promise<void>;
  /** Start it again on the same port. */
  resume(): Promise<void>;
  /** Stop it and delete the cluster. */
  stop(): Promise<void>;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const { stdout } = await run('bash', [SCRIPT, 'start'], { timeout: 120_000 });
  const url = /TEST_DATABASE_URL=(\S+)/.exec(stdout)?.[1];
  const dir = /TEST_POSTGRES_DIR=(\S+)/.exec(stdout)?.[1];
  if (!url || !dir) throw new Error(`test-postgres.sh start printed no cluster: ${stdout}`);
  return {
    url,
    pause: async () => void (await run('bash', [SCRIPT, 'pause', dir], { timeout: 60_000 })),
    resume: async () => void (await run('bash', [SCRIPT, 'resume', dir], { timeout: 60_000 })),
    stop: async () => void (await run('bash', [SCRIPT, 'stop', dir], { timeout: 60_000 })),
  };
}
