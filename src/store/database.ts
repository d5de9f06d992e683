/**
 * The shared SQLite handle (better-sqlite3 12.x). One file, `DATA_DIR/service.db`, in WAL mode.
 * Every store creates its own tables on this handle with `CREATE TABLE IF NOT EXISTS` in its
 * constructor (turns, event log, schedules, workflows, brain…); there is no central migration list.
 */
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

export type Database = BetterSqlite3.Database;

/**
 * WAL size (pages of 4 KiB) at which a commit checkpoints inline (SQLite's `wal_autocheckpoint`;
 * its default is 1000). The checkpointer thread normally empties the WAL long before; this
 * bounds it (about 40 MB) when that thread falls behind or is not running.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 10_000;

/**
 * Attach `lockFile` as `owner` and write it once in exclusive locking mode: from then on the
 * connection holds that file's exclusive lock until it closes.
 * @throws the SQLite error (SQLITE_BUSY when another connection holds it).
 */
function takeOwnership(db: Database, lockFile: string): void {
  db.prepare('ATTACH DATABASE ? AS owner').run(lockFile);
  db.pragma('owner.locking_mode = EXCLUSIVE');
  db.pragma('owner.journal_mode = MEMORY'); // written once; no journal file beside it
  db.exec('CREATE TABLE IF NOT EXISTS owner.service_owner (pid INTEGER NOT NULL); DELETE FROM owner.service_owner');
  db.prepare('INSERT INTO owner.service_owner (pid) VALUES (?)').run(process.pid);
}

/**
 * Open (creating if needed) the service database in `dataDir`, owned EXCLUSIVELY by this process:
 * a second service process on the same DATA_DIR is refused at start instead of running beside
 * the first (two runners of one agent's turns, overlapping commands in one home).
 *
 * Ownership is a lock on `DATA_DIR/service.lock`, a small SQLite file attached to the connection
 * as `owner` and written once in `locking_mode = EXCLUSIVE`
 * (https://www.sqlite.org/pragma.html#pragma_locking_mode): the connection keeps that file's
 * exclusive lock until it is closed, and the lock goes with the process (also on SIGKILL). The
 * database itself, `service.db`, is in WAL mode with normal locking, so that a second connection
 * of this process — {@link startWalCheckpointer}'s, on a worker thread — can copy the WAL back
 * into the database (a checkpoint: two fsyncs, milliseconds) without blocking the event loop.
 * SQLite's own checkpoint on commit stays as a bound: it runs inline only once the WAL holds
 * {@link WAL_AUTOCHECKPOINT_PAGES} pages (the checkpointer not keeping up, or not running).
 * A service of an older version holds `service.db` itself exclusively; either way round, the
 * second one is refused.
 * Pass `':memory:'` as `dataDir` for a throw-away in-memory database (tests).
 * `opts.exclusive: false` opens it without taking ownership, for tests of stores written by
 * several connections at once — never the service itself.
 * @throws DataDirInUseError when another process holds the database; DatabaseFileError when
 *   `service.db` or `service.lock` cannot be used (a folder, not a SQLite file, not writable by
 *   this user); other errors when the directory cannot be created.
 */
export function openDatabase(dataDir: string, opts: { exclusive?: boolean } = {}): Database {
  let db: Database;
  if (dataDir === ':memory:') {
    db = new BetterSqlite3(':memory:');
  } else {
    fs.mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, 'service.db');
    try {
      db = new BetterSqlite3(file, { timeout: opts.exclusive === false ? 5000 : 0 });
    } catch (err) {
      throw new DatabaseFileError(file, err);
    }
    try {
      db.pragma('journal_mode = WAL');
      db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
      if (opts.exclusive !== false) takeOwnership(db, path.join(dataDir, 'service.lock'));
      // A service of an older version holds service.db itself exclusively: the first read says so.
      db.prepare('SELECT count(*) FROM sqlite_master').get();
    } catch (err) {
      db.close();
      if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirInUseError(dataDir);
      throw new DatabaseFileError(file, err);
    }
  }
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}

/** Another process (a second service on the same DATA_DIR) holds `DATA_DIR/service.db`. */
export class DataDirInUseError extends Error {
  constructor(readonly dataDir: string) {
    super(
      `DATA_DIR ${dataDir} is in use by another service process (its SQLite database is held exclusively while a service runs); ` +
        'give each instance its own DATA_DIR, or run several instances on one Postgres database (DATABASE_URL, README "Run several instances")',
    );
    this.name = 'DataDirInUseError';
  }
}

/**
 * `DATA_DIR/service.db` cannot be opened as the service's database: `message` is one line naming
 * the file, what is wrong with it (a folder, not a SQLite database, a file this user cannot write)
 * and what to do. src/main.ts prints it as `refusing to start: …` and exits with code 2.
 */
export class DatabaseFileError extends Error {
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(databaseFileProblem(file, cause), { cause });
    this.name = 'DatabaseFileError';
  }
}

/** Why `file` (DATA_DIR/service.db) could not be opened, as {@link DatabaseFileError} says it. */
function databaseFileProblem(file: string, err: unknown): string {
  const e = (err ?? {}) as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const why = `${code ? `${code}: ` : ''}${(typeof e.message === 'string' ? e.message : String(err)).split('\n')[0]}`;
  const elsewhere = 'or point DATA_DIR at another folder';
  if (isFolder(file)) return `${file} is a folder, not a SQLite database file (${why}): move it away (the service creates its database there) ${elsewhere}`;
  if (code === 'SQLITE_NOTADB') return `${file} is not a SQLite database (${why}): move it away (the service creates a new database there) ${elsewhere}`;
  // Opened read-only (WAL needs writing) or not at all: the database or a journal beside it
  // belongs to another user, e.g. root after a run as root.
  for (const f of [file, `${file}-wal`, `${file}-shm`, path.join(path.dirname(file), 'service.lock')]) {
    const owner = unusableBy(f);
    if (owner === undefined) continue;
    const uid = process.getuid?.();
    return (
      `${f} cannot be read and written by this user${uid === undefined ? '' : ` (uid ${uid}; the file belongs to uid ${owner})`} (${why}): ` +
      `fix its owner or mode (e.g. chown ${uid ?? '<user>'} ${f}) ${elsewhere}`
    );
  }
  return `cannot open the SQLite database ${file} (${why}): check that file, ${elsewhere}`;
}

function isFolder(file: string): boolean {
  try {
    return fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** The owner uid of `file` when it exists and this process may not read and write it; else undefined. */
function unusableBy(file: string): number | undefined {
  let owner: number;
  try {
    owner = fs.statSync(file).uid;
  } catch {
    return undefined;
  }
  try {
    fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
    return undefined;
  } catch {
    return owner;
  }
}
