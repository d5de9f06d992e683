/**
 * The real service process refuses to start on a DATABASE_URL it cannot use with ONE
 * `refusing to start:` line saying what is wrong and what to check — no stack trace, never the
 * password — and exit code 2: a port out of range, a malformed host, a database that does not
 * exist, SSL asked of a server without it (the test cluster has no SSL).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { describePostgres, TEST_DATABASE_URL } from '../support/postgres.js';
import { spawnService } from './support/child.js';

const PASSWORD = 'pw-Secret-4711';
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function refusal(databaseUrl: string): Promise<{ code: number | null; out: string }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'db-refusal-'));
  dirs.push(dataDir);
  const child = spawnService({ DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', DATABASE_URL: databaseUrl, STREAM_TOKEN_SECRET: 'a-shared-secret-of-32-characters' });
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), 60_000);
  const code = await child.exited;
  clearTimeout(timer);
  return { code, out: child.output() };
}

function expectOneLine(r: { code: number | null; out: string }, pattern: RegExp): void {
  expect(r.code, r.out).toBe(2);
  const lines = r.out.split('\n').filter((l) => l.startsWith('refusing to start:'));
  expect(lines, r.out).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(r.out).not.toMatch(/^\s+at /m); // no stack trace
  expect(r.out).not.toContain('fatal:');
  expect(r.out).not.toContain(PASSWORD);
}

/** TEST_DATABASE_URL with the password, database and query replaced. */
function testServer(database: string, query = ''): string {
  const u = new URL(TEST_DATABASE_URL!);
  u.password = PASSWORD;
  u.pathname = `/${database}`;
  u.search = query;
  return u.toString();
}

describePostgres('refusing to start on an unusable DATABASE_URL', () => {
  it('a port out of range', async () => {
    expectOneLine(await refusal(`postgres://u:${PASSWORD}@127.0.0.1:99999/x`), /DATABASE_URL: is not a valid URL: port 99999 is out of range/);
  }, 90_000);

  it('a malformed host', async () => {
    expectOneLine(await refusal(`postgres://u:${PASSWORD}@[bad/x`), /DATABASE_URL: is not a valid URL: the host "\[bad"/);
  }, 90_000);

  it('a database that does not exist', async () => {
    expectOneLine(await refusal(testServer('no_such_database_here')), /the database "no_such_database_here" named in DATABASE_URL does not exist on 127\.0\.0\.1:\d+: create it/);
  }, 90_000);

  it('sslmode=require against a server without SSL', async () => {
    expectOneLine(await refusal(testServer('postgres', '?sslmode=require')), /does not accept SSL connections, but DATABASE_URL asks for SSL \(sslmode=require\): remove sslmode/);
  }, 90_000);
});
