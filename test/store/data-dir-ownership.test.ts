/**
 * DATA_DIR/service.lock removed while a service runs: the service locks it again (a service
 * started on the folder afterwards is refused again), and when another process took the new lock
 * first, the running service commits nothing more — its next write finds it — and stops (exit 1)
 * instead of running the same turns beside it. A service.lock that is not a lock file the service
 * made (a symbolic link, a folder, a copy of service.db) is refused, named.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { DatabaseFileError, DataDirInUseError, DataDirLostError, keepOwnership, openDatabase, ownershipCheck } from '../../src/store/database.js';
import { freePort, spawnService, waitHealthy, type Child } from '../e2e/support/child.js';
import { api } from '../e2e/support/service.js';
import { ownershipLostLine } from '../../src/services.js';
import { functionCall, message, startScriptedResponsesServer } from '../support/scripted-responses-server.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'ownership-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** What opening `dir` threw (the test fails when it opened). */
function refusalOf(dir: string): Error {
  try {
    openDatabase(dir).close();
  } catch (e) {
    return e as Error;
  }
  throw new Error(`${dir} opened`);
}

/**
 * `body` with an owning database in a new folder, watched ({@link keepOwnership}, every `intervalMs`)
 * into `retaken` and `lost`; the watch stopped and the database closed after it, however it ends.
 */
async function withWatchedDatabase(
  intervalMs: number,
  body: (w: { dir: string; db: ReturnType<typeof openDatabase>; retaken: string[]; lost: Error[] }) => void | Promise<void>,
): Promise<void> {
  return withWatchedDatabaseAt(tmp(), body, intervalMs);
}

/** {@link withWatchedDatabase} in folder `dir` (made by the caller), watched every `intervalMs` (default an hour: writes alone look). */
async function withWatchedDatabaseAt(
  dir: string,
  body: (w: { dir: string; db: ReturnType<typeof openDatabase>; retaken: string[]; lost: Error[] }) => void | Promise<void>,
  intervalMs = 3_600_000,
): Promise<void> {
  const db = openDatabase(dir);
  const retaken: string[] = [];
  const lost: Error[] = [];
  const stop = keepOwnership(db, { onRetaken: (f) => retaken.push(f), onLost: (e) => lost.push(e) }, intervalMs);
  try {
    await body({ dir, db, retaken, lost });
  } finally {
    stop();
    db.close();
  }
}

it('a removed lock file is locked again, so a later open is refused; one another process took first is reported lost', async () => {
  await withWatchedDatabase(50, async ({ dir, retaken, lost }) => {
    rmSync(path.join(dir, 'service.lock'));
    await expect.poll(() => retaken, { timeout: 2000, interval: 20 }).toEqual([path.join(dir, 'service.lock')]);
    expect(() => openDatabase(dir)).toThrow(DataDirInUseError);

    // Removed again, and another opener is quicker than the watch: it owns the folder now.
    rmSync(path.join(dir, 'service.lock'));
    const other = openDatabase(dir);
    await expect.poll(() => lost.length, { timeout: 2000, interval: 20 }).toBe(1);
    expect(lost[0]).toBeInstanceOf(DataDirInUseError);
    other.close();
  });
});

it('a write after another process locked the removed lock file is refused before it commits, without waiting for the watch', async () => {
  // The timer (an hour) plays no part.
  await withWatchedDatabase(3_600_000, ({ dir, db, lost }) => {
    db.exec('CREATE TABLE t (x)');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    rmSync(path.join(dir, 'service.lock'));
    const other = openDatabase(dir); // a second service
    try {
      expect(() => insert.run(1)).toThrow(DataDirLostError);
      expect(lost).toHaveLength(1);
      expect(lost[0]).toBeInstanceOf(DataDirInUseError);
      // Every later write is refused too — in a transaction, through exec — and reported no more.
      expect(() => db.transaction(() => insert.run(2)).immediate()).toThrow(DataDirLostError);
      expect(() => db.exec('INSERT INTO t VALUES (3)')).toThrow(
        `this service no longer owns DATA_DIR ${dir} and is stopping, so nothing was written: DATA_DIR ${dir} is in use by another service process`,
      );
      expect(() => ownershipCheck(db)()).toThrow(DataDirLostError); // what a turn run asks before a model request
      expect(lost).toHaveLength(1);
      // Nothing was written; reads go on.
      expect(other.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
      expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
    } finally {
      other.close();
    }
  });
});

it('a write after the lock file was removed locks it again first, then is stored; a later open is refused', async () => {
  await withWatchedDatabase(3_600_000, ({ dir, db, retaken }) => {
    db.exec('CREATE TABLE t (x)');
    rmSync(path.join(dir, 'service.lock'));
    db.transaction(() => db.prepare('INSERT INTO t VALUES (?)').run(1)).immediate();
    expect(retaken).toEqual([path.join(dir, 'service.lock')]);
    expect(() => openDatabase(dir)).toThrow(DataDirInUseError);
    expect(db.prepare('SELECT x FROM t').pluck().all()).toEqual([1]);
    // So does the look before a model request.
    rmSync(path.join(dir, 'service.lock'));
    ownershipCheck(db)();
    expect(retaken).toHaveLength(2);
    expect(() => openDatabase(dir)).toThrow(DataDirInUseError);
  });
});

it('a DATA_DIR with a bidirectional control in its name is shown escaped and quoted when it is lost: the refused write, the log line and the second opener', async () => {
  const dir = path.join(tmp(), 'data\u202Edir');
  mkdirSync(dir);
  await withWatchedDatabaseAt(dir, ({ db, lost }) => {
    db.exec('CREATE TABLE t (x)');
    rmSync(path.join(dir, 'service.lock'));
    const other = openDatabase(dir);
    try {
      let refused: Error | undefined;
      try {
        db.prepare('INSERT INTO t VALUES (1)').run();
      } catch (e) {
        refused = e as Error;
      }
      expect(refused).toBeInstanceOf(DataDirLostError);
      const shown = JSON.stringify(dir).replace('\u202E', '\\u202E').replace('\u202e', '\\u202E');
      for (const text of [refused!.message, ownershipLostLine(dir, lost[0]), refusalOf(dir).message]) {
        expect(text).not.toContain('\u202E');
        expect(text).toContain(`DATA_DIR ${shown}`);
      }
    } finally {
      other.close();
    }
  });
});

it('a copy of service.db put in place as service.lock is refused, named, and left as it was', () => {
  const from = tmp();
  const source = openDatabase(from);
  source.exec("CREATE TABLE turns (id TEXT); INSERT INTO turns VALUES ('t1')");
  source.close();
  const dir = tmp();
  const lock = path.join(dir, 'service.lock');
  copyFileSync(path.join(from, 'service.db'), lock);
  const before = readFileSync(lock);
  const err = refusalOf(dir);
  expect(err).toBeInstanceOf(DatabaseFileError);
  expect(err.message).toBe(
    `${lock} is a SQLite database with data (it holds a table: turns), not the service's lock file (which holds only the table service_owner) — a copy of service.db?: with no service running on this DATA_DIR, move it away (keep it if you need what it holds; the service creates its lock file again) or point DATA_DIR at another folder`,
  );
  expect(readFileSync(lock).equals(before)).toBe(true);
  expect(readdirSync(dir)).toEqual(['service.lock']);
  // The lock file the service makes is accepted again and again.
  const fresh = tmp();
  openDatabase(fresh).close();
  openDatabase(fresh).close();
});

/**
 * A real service process on a new DATA_DIR, healthy, whose service.lock the test has just
 * removed; `run` goes on from there. The process is killed afterwards (SIGTERM, then SIGKILL).
 */
async function withLockRemoved(run: (a: Child, dataDir: string, port: number) => Promise<void>): Promise<void> {
  const dataDir = tmp();
  const port = await freePort();
  const a = spawnService({ PORT: String(port), DATA_DIR: dataDir });
  try {
    await waitHealthy(`http://127.0.0.1:${port}`, a, 20_000);
    rmSync(path.join(dataDir, 'service.lock'));
    await run(a, dataDir, port);
  } finally {
    a.proc.kill('SIGTERM');
    if ((await Promise.race([a.exited.then(() => 'exited'), sleep(10_000)])) !== 'exited') a.proc.kill('SIGKILL');
    await a.exited;
  }
}

it('a running service whose service.lock was removed and taken by another process stops with exit 1, saying why', { timeout: 40_000 }, async () => {
  await withLockRemoved(async (a, dataDir) => {
    const taker = openDatabase(dataDir); // what a second service does first
    try {
      expect(await Promise.race([a.exited, sleep(10_000).then(() => 'still running')])).toBe(1);
    } finally {
      taker.close();
    }
    expect(a.output()).toContain(`DATA_DIR ${dataDir} was taken over: its service.lock was removed or replaced while this service ran and another process holds it now; this service stops`);
    // Its last line says it stopped, and why.
    expect(JSON.parse(a.output().trimEnd().split('\n').at(-1)!)).toMatchObject({ level: 'info', msg: 'stopped', reason: 'DATA_DIR taken over or lost', exit_code: 1 });
  });
});

it('a running service whose service.lock was removed locks it again, warns, and a second service is refused', { timeout: 40_000 }, async () => {
  await withLockRemoved(async (a, dataDir, port) => {
    await expect.poll(() => a.output(), { timeout: 6000, interval: 100 }).toContain('was removed or replaced while this service runs; it is locked again');
    expect(() => openDatabase(dataDir)).toThrow(DataDirInUseError);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });
});

it('a service.lock that is a symbolic link is refused, naming the link, and nothing is created where it points', () => {
  const dir = tmp();
  const target = path.join(tmp(), 'elsewhere.db');
  symlinkSync(target, path.join(dir, 'service.lock'));
  const err = refusalOf(dir);
  expect(err).toBeInstanceOf(DatabaseFileError);
  expect(err.message).toBe(
    `${dir}/service.lock is a symbolic link (to ${target}), not the service's lock file: with no service running on this DATA_DIR, remove the link (it only marks the folder as held by a running service and holds no data; the service creates it again) or point DATA_DIR at another folder`,
  );
  expect(existsSync(target)).toBe(false);
});

it('the refusal of a symbolic link shows its target on one line, a bidirectional control or line break in it escaped', () => {
  const dir = tmp();
  symlinkSync('/x/evil\u202e\nname', path.join(dir, 'service.lock'));
  expect(() => openDatabase(dir).close()).toThrow(`${dir}/service.lock is a symbolic link (to /x/evil\\u202E\\u000Aname), not the service's lock file`);
});

it('a running service whose service.lock was replaced by a folder stops with exit 1, saying what is there (not that another process holds it)', { timeout: 40_000 }, async () => {
  await withLockRemoved(async (a, dataDir) => {
    mkdirSync(path.join(dataDir, 'service.lock'));
    expect(await Promise.race([a.exited, sleep(10_000).then(() => 'still running')])).toBe(1);
    expect(a.output()).toContain(
      `DATA_DIR ${dataDir} can no longer be held: its service.lock was removed or replaced while this service ran and cannot be locked again (${dataDir}/service.lock is a folder, not the service's lock file`,
    );
    expect(a.output()).not.toContain('another process holds it now');
  });
});

/** The events of turn `id` stored in `dataDir`, their turn_items and checkpoint (read by another connection, as `sqlite3 -readonly` would). */
function stored(dataDir: string, id: string) {
  const db = new BetterSqlite3(path.join(dataDir, 'service.db'), { readonly: true });
  try {
    return {
      events: db.prepare('SELECT seq, type, data FROM event_log WHERE stream_id = ? ORDER BY seq').all(id) as { seq: number; type: string; data: string }[],
      items: db.prepare('SELECT idx, data FROM turn_items WHERE turn_id = ? ORDER BY idx').all(id),
      checkpoint: db.prepare('SELECT * FROM turn_checkpoints WHERE turn_id = ?').get(id),
    };
  } finally {
    db.close();
  }
}

// As a reviewer met it: service.lock deleted while a turn ran and another service locking the
// folder at once — here the test takes the lock as a second service does first, right after the
// delete (nothing of A's runs in between); then A's model answers. A's 2 s look is put off
// (10 min), so only the look before each write can stop it. Then a real second service resumes
// the turn.
it.each([
  {
    held: 'a tool call (whose run would be stored, then a second request)',
    script: (gate: Promise<void>) => [
      async () => {
        await gate;
        return { output: [functionCall('todo', { todos: [{ id: '1', content: 'written by A', status: 'pending' }] }, { callId: 'call_a' })] };
      },
      { output: [message('second answer of A')] },
    ],
  },
  {
    // After a tool round an empty answer is followed by a nudging request at once, before the
    // round's write-behind commit: only the look before the request stops it.
    held: 'an empty answer (a request follows at once, before anything is committed)',
    script: (gate: Promise<void>) => [
      { output: [functionCall('todo', { todos: [{ id: '1', content: 'plan', status: 'pending' }] }, { callId: 'call_a' })] },
      async () => {
        await gate;
        return { output: [message('')] };
      },
      { output: [message('second answer of A')] },
    ],
  },
])('a service whose service.lock another process took stores nothing more and asks its model nothing more; the next service runs the turn ($held)', { timeout: 120_000 }, async ({ script }) => {
  let releaseA!: () => void;
  const gateA = new Promise<void>((r) => (releaseA = r));
  const modelA = await startScriptedResponsesServer(script(gateA));
  const held = script(gateA).length - 1; // requests A makes up to the held one
  const modelB = await startScriptedResponsesServer([{ output: [message('answered by B')] }]);
  const dataDir = tmp();
  const env = { DATA_DIR: dataDir, OPENAI_API_KEY: 'k', MODEL: 'm', MODEL_MAX_RETRIES: '0' };
  const [portA, portB] = [await freePort(), await freePort()];
  const a = spawnService({ ...env, PORT: String(portA), OPENAI_BASE_URL: modelA.baseURL }, undefined, { entry: 'test/e2e/support/main-lock-checked-by-writes.ts' });
  let b: Child | undefined;
  let taker: ReturnType<typeof openDatabase> | undefined;
  try {
    await waitHealthy(`http://127.0.0.1:${portA}`, a);
    const id = (await api(`http://127.0.0.1:${portA}`, 'POST', '/v1/turns', { input: 'plan it' })).body.id as string;
    await expect.poll(() => modelA.requests.length, { timeout: 10_000 }).toBe(held); // A's run waits for its model
    const before = stored(dataDir, id);

    rmSync(path.join(dataDir, 'service.lock'));
    taker = openDatabase(dataDir); // the other service's first step: the lock is its
    releaseA(); // A's model answers

    const exit = await Promise.race([a.exited, sleep(10_000).then(() => 'still running')]);
    // Nothing of A's after the lock was taken: no event, no transcript item, no checkpoint; no second model request.
    expect(stored(dataDir, id)).toEqual(before);
    expect(modelA.requests.length).toBe(held);
    expect(exit).toBe(1);
    expect(a.output()).toContain(`DATA_DIR ${dataDir} was taken over: its service.lock was removed or replaced while this service ran and another process holds it now; this service stops`);
    expect(a.output()).not.toContain('turn run failed');
    expect(a.output()).not.toContain('turn run crashed');
    // Its refused writes are the stop, not failures of its loops (nor recoveries of them).
    expect(a.output()).not.toMatch(/claiming turns failed|turn heartbeat failed|recovered after/);

    // The turn was left running (not failed): the next service on the folder resumes it and ends it, with nothing of A's in it.
    taker.close();
    taker = undefined;
    b = spawnService({ ...env, PORT: String(portB), OPENAI_BASE_URL: modelB.baseURL });
    const urlB = `http://127.0.0.1:${portB}`;
    await waitHealthy(urlB, b);
    await expect.poll(async () => (await api(urlB, 'GET', `/v1/turns/${id}`)).body.status, { timeout: 20_000 }).toBe('completed');
    expect((await api(urlB, 'GET', `/v1/turns/${id}`)).body.output_text).toBe('answered by B');
    const end = stored(dataDir, id);
    expect(end.events.slice(0, before.events.length)).toEqual(before.events);
    expect(end.events.map((e) => e.type)).toContain('turn.resumed');
    expect(end.events.map((e) => e.seq)).toEqual(end.events.map((_, i) => i + 1));
    expect(JSON.stringify(end)).not.toContain('written by A');
  } finally {
    releaseA();
    taker?.close();
    for (const child of [a, b]) {
      if (!child || child.proc.exitCode !== null) continue;
      child.proc.kill('SIGTERM');
      if ((await Promise.race([child.exited.then(() => 'exited'), sleep(10_000)])) !== 'exited') child.proc.kill('SIGKILL');
      await child.exited;
    }
    await modelA.close();
    await modelB.close();
  }
});
