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
 * Open (creating if needed) the service database in `dataDir`, held EXCLUSIVELY by this process
 * (SQLite `locking_mode = EXCLUSIVE` in WAL mode, https://www.sqlite.org/pragma.html#pragma_locking_mode):
 * a second service process on the same DATA_DIR is refused at start instead of running beside
 * the first (two runners of one agent's turns, overlapping commands in one home). The lock goes
 * with the process (also on SIGKILL). Exclusive mode also keeps the WAL index in process memory
 * and skips the file locks of every transaction, which makes each commit cheaper.
 * Pass `':memory:'` as `dataDir` for a throw-away in-memory database (tests).
 * `opts.exclusive: false` opens it shared (normal locking), for tests of stores written by several
 * connections at once — never the service itself.
 * @throws DataDirInUseError when another process holds the database; other errors when the
 *   directory cannot be created or the file cannot be opened.
 */
export function openDatabase(dataDir: string, opts: { exclusive?: boolean } = {}): Database {
  let db: Database;
  if (dataDir === ':memory:') {
    db = new BetterSqlite3(':memory:');
  } else {
    fs.mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, 'service.db');
    db = new BetterSqlite3(file, { timeout: opts.exclusive === false ? 5000 : 0 });
    try {
      if (opts.exclusive !== false) db.pragma('locking_mode = EXCLUSIVE');
      db.pragma('journal_mode = WAL');
      // The exclusive lock is taken by the first read and kept until close.
      db.prepare('SELECT count(*) FROM sqlite_master').get();
    } catch (err) {
      db.close();
      if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirInUseError(dataDir);
      throw err;
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
