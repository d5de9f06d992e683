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
 * Open (creating if needed) the service database in `dataDir`.
 * Pass `':memory:'` as `dataDir` for a throw-away in-memory database (tests).
 * @throws when the directory cannot be created or the file cannot be opened.
 */
export function openDatabase(dataDir: string): Database {
  let db: Database;
  if (dataDir === ':memory:') {
    db = new BetterSqlite3(':memory:');
  } else {
    fs.mkdirSync(dataDir, { recursive: true });
    db = new BetterSqlite3(path.join(dataDir, 'service.db'));
    db.pragma('journal_mode = WAL');
  }
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}
