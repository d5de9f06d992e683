/**
 * Checkpoints of the service's SQLite WAL on a worker thread, so that they never block the event
 * loop.
 *
 * In WAL mode every commit appends pages to `service.db-wal`; a checkpoint copies them back into
 * `service.db` and fsyncs both files (https://www.sqlite.org/wal.html#checkpointing). Run by the
 * committing connection (SQLite's default, every 1000 pages), it stops the whole service for the
 * fsyncs — 5–20 ms on a virtual disk, once every few turns — in the middle of some turn's commit.
 * Here a second connection on a worker thread runs `PRAGMA wal_checkpoint(PASSIVE)` (which never
 * waits for, nor blocks, the writer) once per {@link WalCheckpointerOptions.intervalMs} when the
 * service wrote since the last one. When a checkpoint has copied the whole WAL, the service's next
 * write starts the WAL again from its beginning, so the file stops growing. SQLite's inline
 * checkpoint remains as the bound (src/store/database.ts `WAL_AUTOCHECKPOINT_PAGES`) for a WAL
 * that never gets a quiet moment.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database } from './database.js';

/** A checkpoint's result: the WAL's frames, and how many of them are now in the database (SQLite's `log` and `checkpointed`). */
export interface CheckpointResult {
  log: number;
  checkpointed: number;
}

export interface WalCheckpointerOptions {
  /** Ms between looks at whether the service wrote (default 200). */
  intervalMs?: number;
  /** A checkpoint failed (the worker's connection could not open, a disk error…); called for every failure. */
  onError?: (err: Error) => void;
  /** A checkpoint ended: the WAL's frames and how many of them are now in the database (tests, metrics). */
  onCheckpoint?: (result: CheckpointResult) => void;
}

export interface WalCheckpointer {
  /** Run a checkpoint now (when none is running); resolves when it ended, with its result or undefined on failure. */
  checkpoint(): Promise<CheckpointResult | undefined>;
  /** Stop the timer, let a running checkpoint end, close the worker's connection. Idempotent. */
  close(): Promise<void>;
}

/** The worker: one connection, one statement. Plain JavaScript, run with `eval` (no build step of its own). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let db;
parentPort.on('message', (msg) => {
  if (msg === 'close') { try { db?.close(); } catch {} process.exit(0); }
  try {
    db ??= new (require(workerData.driver))(workerData.file, { timeout: 0, fileMustExist: true });
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ log: r.log, checkpointed: r.checkpointed });
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err), code: err && err.code });
  }
});
`;

/**
 * Start checkpointing `file` (default: the file `db` has open, in WAL mode) from a worker thread;
 * `undefined` for an in-memory `db`, which has no WAL. The worker and its timer do not keep the
 * process alive. Close it before closing `db`, so that the last connection to close is the
 * service's (SQLite then checkpoints and removes the WAL).
 */
export function startWalCheckpointer(db: Database, file: string, options?: WalCheckpointerOptions): WalCheckpointer;
export function startWalCheckpointer(db: Database, file?: undefined, options?: WalCheckpointerOptions): WalCheckpointer | undefined;
export function startWalCheckpointer(db: Database, file?: string, options: WalCheckpointerOptions = {}): WalCheckpointer | undefined {
  if (file === undefined) {
    if (db.memory) return undefined;
    file = db.name;
  }
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file } });
  worker.unref();
  const totalChanges = db.prepare('SELECT total_changes()').pluck();
  let seen = totalChanges.get() as number;
  let running: Promise<CheckpointResult | undefined> | undefined;
  let closed = false;
  let gone = false;
  let settle: ((r: CheckpointResult | undefined) => void) | undefined;

  worker.on('message', (m: CheckpointResult | { error: string; code?: string }) => {
    const done = settle;
    settle = undefined;
    if ('error' in m) {
      options.onError?.(Object.assign(new Error(`WAL checkpoint failed: ${m.error}`), { code: m.code }));
      done?.(undefined);
      return;
    }
    options.onCheckpoint?.(m);
    done?.(m);
  });
  worker.on('error', (err) => options.onError?.(err));
  worker.on('exit', () => {
    gone = true;
    settle?.(undefined);
    settle = undefined;
  });

  const checkpoint = () => {
    if (closed || gone) return Promise.resolve(undefined);
    running ??= new Promise<CheckpointResult | undefined>((resolve) => {
      settle = resolve;
      worker.postMessage('checkpoint');
    }).finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => {
    if (running) return;
    const now = totalChanges.get() as number;
    if (now === seen) return;
    seen = now;
    void checkpoint();
  }, options.intervalMs ?? 200);
  timer.unref();

  return {
    checkpoint,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await running;
      if (gone) return;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.ref(); // the process waits for the worker's connection to close
      worker.postMessage('close');
      await exited;
    },
  };
}
