/**
 * The service's WAL is checkpointed by a worker thread, not by the event loop: what a turn stored
 * reaches `service.db` itself (not only `service.db-wal`) shortly after, though the WAL is far
 * below SQLite's inline threshold; the service still owns its DATA_DIR exclusively; and on stop
 * the worker's connection is closed, so the service's own close removes the WAL.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DataDirInUseError, openDatabase } from '../../src/store/database.js';
import { startWalCheckpointer } from '../../src/store/wal-checkpointer.js';
import { message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService } from '../e2e/support/service.js';

let model: ScriptedResponsesServer;
const dirs: string[] = [];
const tmp = (prefix: string) => {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
};
beforeAll(async () => {
  model = await startScriptedResponsesServer();
});
afterAll(async () => {
  await model.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The rows of `sql` in `service.db` alone: a copy of the file without its WAL (what a checkpoint wrote). */
function inDatabaseFile(dataDir: string, sql: string, ...params: unknown[]): unknown[] {
  const copy = path.join(tmp('wal-copy-'), 'copy.db');
  copyFileSync(path.join(dataDir, 'service.db'), copy);
  const db = new BetterSqlite3(copy, { readonly: true });
  try {
    return db.prepare(sql).all(...params);
  } catch (err) {
    if (/no such table/.test(String(err))) return [];
    throw err;
  } finally {
    db.close();
  }
}

it('a finished turn reaches service.db by a checkpoint off the event loop, and stop leaves no WAL behind', { timeout: 30_000 }, async () => {
  const svc = await startTestService({ modelBaseURL: model.baseURL });
  try {
    model.push({ output: [message('stored')] });
    const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hello', agent_id: 'wal' });
    expect(turn.body.status).toBe('completed');
    // The WAL holds a few dozen pages, far below SQLite's inline checkpoint (10,000): only the
    // checkpointer thread puts the turn into the database file.
    await expect
      .poll(() => inDatabaseFile(svc.dataDir, 'SELECT status FROM turns WHERE id = ?', turn.body.id), { timeout: 5000, interval: 100 })
      .toEqual([{ status: 'completed' }]);
    const [{ n }] = inDatabaseFile(svc.dataDir, 'SELECT count(*) AS n FROM event_log WHERE stream_id = ?', turn.body.id) as { n: number }[];
    expect(n).toBeGreaterThan(2);
  } finally {
    await svc.close({ keepData: true });
  }
  // The worker's connection closed first: the service's close, the last one, removed the WAL.
  expect(existsSync(path.join(svc.dataDir, 'service.db-wal'))).toBe(false);
  rmSync(svc.dataDir, { recursive: true, force: true });
});

it('one process owns a DATA_DIR: a second open is refused while the first is open, and allowed after it closed', () => {
  const dir = tmp('wal-owner-');
  const first = openDatabase(dir);
  expect(() => openDatabase(dir)).toThrow(DataDirInUseError);
  // Another connection may still read the database (normal locking): only ownership is exclusive.
  const reader = new BetterSqlite3(path.join(dir, 'service.db'), { readonly: true });
  expect(reader.prepare('SELECT count(*) AS n FROM sqlite_master').get()).toEqual({ n: 0 });
  reader.close();
  first.close();
  const again = openDatabase(dir);
  again.close();
  // A service of the previous version held service.db itself exclusively: still refused.
  const old = new BetterSqlite3(path.join(dir, 'service.db'));
  old.pragma('locking_mode = EXCLUSIVE');
  old.prepare('SELECT count(*) FROM sqlite_master').get();
  expect(() => openDatabase(dir)).toThrow(DataDirInUseError);
  old.close();
  openDatabase(dir).close();
});

it('checkpoint() copies the WAL into the database and reports it; a failing worker is reported, not thrown', async () => {
  const dir = tmp('wal-direct-');
  const db = openDatabase(dir);
  db.exec('CREATE TABLE t (x TEXT)');
  const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
  for (let i = 0; i < 50; i++) insert.run('x'.repeat(1000));
  const errors: Error[] = [];
  const ckpt = startWalCheckpointer(db, path.join(dir, 'service.db'), { intervalMs: 60_000, onError: (e) => errors.push(e) });
  const r = await ckpt.checkpoint();
  expect(r && r.log).toBeGreaterThan(10);
  expect(r?.checkpointed).toBe(r?.log);
  expect(inDatabaseFile(dir, 'SELECT count(*) AS n FROM t')).toEqual([{ n: 50 }]);
  await ckpt.close();
  await ckpt.close(); // idempotent
  expect(await ckpt.checkpoint()).toBeUndefined();
  db.close();

  const missing = startWalCheckpointer(openDatabase(':memory:'), path.join(dir, 'no-such.db'), { intervalMs: 60_000, onError: (e) => errors.push(e) });
  expect(await missing.checkpoint()).toBeUndefined();
  expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/^WAL checkpoint failed: .*no-such\.db|^WAL checkpoint failed: unable to open/)]);
  await missing.close();
});
