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
  const st = fs.statSync(lockFile);
  heldLocks.set(db, { file: lockFile, dev: st.dev, ino: st.ino });
}

/** The lock file each owning connection holds, by device and inode (to see it removed or replaced). */
const heldLocks = new WeakMap<Database, { file: string; dev: number; ino: number }>();

/** What {@link keepOwnership} reports. */
export interface OwnershipWatch {
  /** The lock file was removed or replaced while the service ran, and is locked again (nobody else had taken it). */
  onRetaken(file: string): void;
  /** The lock file was removed or replaced and could not be locked again: another process holds it (another service started on the folder). */
  onLost(err: DataDirInUseError | DatabaseFileError): void;
}

/**
 * Watch the lock file `db` holds ({@link openDatabase}): every `intervalMs` (default 2000) it is
 * looked up; when it was removed or replaced (another inode at its path), it is locked again at
 * once — so that a service started later on the folder is refused again — and `onRetaken` is
 * called; when that fails (another service took it meanwhile, or the path is no longer usable),
 * `onLost`, once, and the watch ends. As PostgreSQL's postmaster re-checks its
 * `postmaster.pid` and shuts down when it is gone (src/backend/utils/init/miscinit.c,
 * RecheckDataDirLockFile). A no-op for a connection that holds no lock. The timer does not keep
 * the process alive. Returns a function that stops the watch.
 */
export function keepOwnership(db: Database, watch: OwnershipWatch, intervalMs = 2000): () => void {
  const held = heldLocks.get(db);
  if (!held) return () => {};
  const dataDir = path.dirname(held.file);
  const timer = setInterval(() => {
    const now = heldLocks.get(db);
    if (!now || !db.open) return stop();
    let same = false;
    try {
      const st = fs.statSync(now.file);
      same = st.dev === now.dev && st.ino === now.ino;
    } catch {
      // removed
    }
    if (same) return;
    // Never wait for a lock here (the connection's busy_timeout would stop the event loop).
    const wait = db.pragma('busy_timeout', { simple: true }) as number;
    db.pragma('busy_timeout = 0');
    try {
      db.exec('DETACH DATABASE owner');
      takeOwnership(db, now.file);
      watch.onRetaken(now.file);
    } catch (err) {
      heldLocks.delete(db);
      stop();
      watch.onLost(refusal(err, dataDir, now.file, 'lock'));
    } finally {
      db.pragma(`busy_timeout = ${wait}`);
    }
  }, intervalMs);
  timer.unref();
  const stop = () => clearInterval(timer);
  return stop;
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
    const lockFile = path.join(dataDir, 'service.lock');
    const fresh = !fs.existsSync(file);
    try {
      db = new BetterSqlite3(file, { timeout: opts.exclusive === false ? 5000 : 0 });
    } catch (err) {
      throw new DatabaseFileError(file, err);
    }
    // Readable first (a service of an older version holds service.db itself exclusively: this
    // read says so), then ownership: a refused start writes nothing to service.db (and removes
    // the empty file it just created, unless another service holds the folder).
    try {
      db.prepare('SELECT count(*) FROM main.sqlite_master').get();
    } catch (err) {
      db.close();
      throw refusal(err, dataDir, file);
    }
    if (opts.exclusive !== false) {
      try {
        // A symbolic link would lock (or create) whatever it points at, not this folder's lock.
        if (isSymlink(lockFile)) throw Object.assign(new Error(`it is a symbolic link (to ${fs.readlinkSync(lockFile)})`), { code: 'ELINK' });
        takeOwnership(db, lockFile);
      } catch (err) {
        db.close();
        const refused = refusal(err, dataDir, lockFile, 'lock');
        if (fresh && refused instanceof DatabaseFileError) removeIfEmpty(file);
        throw refused;
      }
    }
    try {
      db.pragma('main.journal_mode = WAL');
      db.pragma(`main.wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    } catch (err) {
      db.close();
      throw refusal(err, dataDir, file);
    }
  }
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}

/**
 * The error for `err`, met opening or keeping `file` of `dataDir`: SQLITE_BUSY (another process
 * holds it) is {@link DataDirInUseError}, anything else {@link DatabaseFileError}.
 */
function refusal(err: unknown, dataDir: string, file: string, kind: 'database' | 'lock' = 'database'): DataDirInUseError | DatabaseFileError {
  return (err as { code?: string }).code === 'SQLITE_BUSY' ? new DataDirInUseError(dataDir) : new DatabaseFileError(file, err, kind);
}

/** `file` when it exists and is empty (a SQLite file this open created and never wrote); errors ignored. */
function removeIfEmpty(file: string): void {
  try {
    if (fs.statSync(file).size === 0) fs.rmSync(file);
  } catch {
    // gone already, or not ours to remove
  }
}

/** Another process (a second service on the same DATA_DIR) holds `DATA_DIR/service.lock` (or, a service of an older version, `service.db`). */
export class DataDirInUseError extends Error {
  constructor(readonly dataDir: string) {
    super(
      `DATA_DIR ${dataDir} is in use by another service process (a running service holds ${path.join(dataDir, 'service.lock')} locked); ` +
        'give each instance its own DATA_DIR, or run several instances on one Postgres database (DATABASE_URL, README "Run several instances")',
    );
    this.name = 'DataDirInUseError';
  }
}

/**
 * `DATA_DIR/service.db` (`kind: 'database'`) or `DATA_DIR/service.lock` (`kind: 'lock'`) cannot
 * be used: `message` is one line naming the file, what is wrong with it (a folder, not a SQLite
 * file, a file this user cannot write) and what to do. src/main.ts prints it as
 * `refusing to start: …` and exits with code 2.
 */
export class DatabaseFileError extends Error {
  constructor(
    readonly file: string,
    cause: unknown,
    kind: 'database' | 'lock' = 'database',
  ) {
    super(databaseFileProblem(file, cause, kind), { cause });
    this.name = 'DatabaseFileError';
  }
}

/** Why `file` could not be used, as {@link DatabaseFileError} says it. */
function databaseFileProblem(file: string, err: unknown, kind: 'database' | 'lock'): string {
  const e = (err ?? {}) as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const why = `${code ? `${code}: ` : ''}${(typeof e.message === 'string' ? e.message : String(err)).split('\n')[0]}`;
  const elsewhere = 'or point DATA_DIR at another folder';
  const dir = path.dirname(file);
  // Opened read-only (WAL needs writing) or not at all: the database, a journal beside it or the
  // lock belongs to another user (e.g. root after a run as root), or lacks write permission.
  const db = path.join(dir, 'service.db');
  const unusable = [db, `${db}-wal`, `${db}-shm`, path.join(dir, 'service.lock')].flatMap((f) => {
    const owner = unusableBy(f);
    return owner === undefined ? [] : [{ f, owner }];
  });
  if (unusable.length > 0) return notWritable(unusable, why, elsewhere);
  if (kind === 'lock') {
    const holdsNothing = 'it only marks the folder as held by a running service and holds no data; the service creates it again';
    if (isFolder(file)) return `${file} is a folder, not the service's lock file (${why}): with no service running on this DATA_DIR, remove it (${holdsNothing}) ${elsewhere}`;
    if (code === 'ELINK') return `${file} is a symbolic link, not the service's lock file (${why}): with no service running on this DATA_DIR, remove the link (${holdsNothing}) ${elsewhere}`;
    if (code === 'SQLITE_NOTADB') return `${file} is not the service's lock file, a SQLite file (${why}): with no service running on this DATA_DIR, delete it (${holdsNothing}) ${elsewhere}`;
    return `cannot use the lock file ${file} (${why}): with no service running on this DATA_DIR, delete it (${holdsNothing}) ${elsewhere}`;
  }
  if (isFolder(file)) return `${file} is a folder, not a SQLite database file (${why}): move it away (the service creates its database there) ${elsewhere}`;
  if (code === 'SQLITE_NOTADB') return `${file} is not a SQLite database (${why}): move it away (the service creates a new database there) ${elsewhere}`;
  return `cannot open the SQLite database ${file} (${why}): check that file, ${elsewhere}`;
}

/**
 * The message for files this user cannot read and write: each named, with its owner, and one
 * command that fixes them all — `chown <uid> …` when another user owns one, else `chmod u+rw …`.
 */
function notWritable(files: { f: string; owner: number }[], why: string, elsewhere: string): string {
  const uid = process.getuid?.();
  const names = files.map((x) => x.f);
  const owners = [...new Set(files.map((x) => x.owner))];
  const ours = uid !== undefined && owners.every((o) => o === uid);
  const whose = uid === undefined ? '' : ` (uid ${uid}; ${files.length > 1 ? 'they belong' : 'the file belongs'} to uid ${owners.join(', ')})`;
  const fix = ours ? `chmod u+rw ${names.join(' ')}` : `chown ${uid ?? '<user>'} ${names.join(' ')}`;
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0];
  return `${list} cannot be read and written by this user${whose} (${why}): fix ${files.length > 1 ? 'their' : 'its'} owner or mode (e.g. ${fix}) ${elsewhere}`;
}

function isSymlink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
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
