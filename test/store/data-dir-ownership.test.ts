/**
 * DATA_DIR/service.lock removed while a service runs: the service locks it again (a service
 * started on the folder afterwards is refused again), and when another process took the new lock
 * first, the running service stops (exit 1) instead of running the same turns beside it.
 */
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import { DatabaseFileError, DataDirInUseError, keepOwnership, openDatabase } from '../../src/store/database.js';
import { freePort, spawnService, waitHealthy, type Child } from '../e2e/support/child.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'ownership-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

it('a removed lock file is locked again, so a later open is refused; one another process took first is reported lost', async () => {
  const dir = tmp();
  const db = openDatabase(dir);
  const retaken: string[] = [];
  const lost: Error[] = [];
  const stop = keepOwnership(db, { onRetaken: (f) => retaken.push(f), onLost: (e) => lost.push(e) }, 50);
  try {
    rmSync(path.join(dir, 'service.lock'));
    await expect.poll(() => retaken, { timeout: 2000, interval: 20 }).toEqual([path.join(dir, 'service.lock')]);
    expect(() => openDatabase(dir)).toThrow(DataDirInUseError);

    // Removed again, and another opener is quicker than the watch: it owns the folder now.
    rmSync(path.join(dir, 'service.lock'));
    const other = openDatabase(dir);
    await expect.poll(() => lost.length, { timeout: 2000, interval: 20 }).toBe(1);
    expect(lost[0]).toBeInstanceOf(DataDirInUseError);
    other.close();
  } finally {
    stop();
    db.close();
  }
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
  let err: unknown;
  try {
    openDatabase(dir).close();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(DatabaseFileError);
  expect((err as Error).message).toBe(
    `${dir}/service.lock is a symbolic link, not the service's lock file (ELINK: it is a symbolic link (to ${target})): with no service running on this DATA_DIR, remove the link (it only marks the folder as held by a running service and holds no data; the service creates it again) or point DATA_DIR at another folder`,
  );
  expect(existsSync(target)).toBe(false);
});
