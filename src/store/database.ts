/**
 * The shared SQLite handle (better-sqlite3 12.x). One file, `DATA_DIR/service.db`, in WAL mode.
 * Every store creates its own tables on this handle with `CREATE TABLE IF NOT EXISTS` in its
 * constructor (turns, event log, schedules, workflows, brain…); there is no central migration list.
 */
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { DomainError } from '../errors.js';
import { escapeUnsafeChars, settingForDisplay } from '../unsafe-chars.js';

export type Database = BetterSqlite3.Database;

/**
 * WAL size (pages of 4 KiB) at which a commit checkpoints inline (SQLite's `wal_autocheckpoint`;
 * its default is 1000). The checkpointer thread normally empties the WAL long before; this
 * bounds it (about 40 MB) when that thread falls behind or is not running.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 10_000;

/**
 * Attach `lockFile` as `owner` and write it once in exclusive locking mode: from then on the
 * connection holds that file's exclusive lock until it closes (or detaches it). Returns the
 * file's identity (device and inode) as locked. Refused, nothing stays attached.
 * @throws SymlinkLockError for a symbolic link (it would lock or create whatever it points at);
 *   NotALockFileError for a SQLite file holding tables besides `service_owner` (a copy of
 *   `service.db`, say: used as the lock it would be changed); the SQLite error otherwise
 *   (SQLITE_BUSY when another connection holds it, SQLITE_NOTADB, SQLITE_CANTOPEN for a folder).
 */
function takeOwnership(db: Database, lockFile: string): { dev: number; ino: number } {
  if (isSymlink(lockFile)) throw new SymlinkLockError(readLink(lockFile));
  db.prepare('ATTACH DATABASE ? AS owner').run(lockFile);
  try {
    // What the service makes holds one table, service_owner; a new file is empty.
    const held = db.prepare("SELECT name FROM owner.sqlite_master WHERE type = 'table' AND name <> 'service_owner' ORDER BY name").pluck().all() as string[];
    if (held.length > 0) throw new NotALockFileError(held);
    db.pragma('owner.locking_mode = EXCLUSIVE');
    db.pragma('owner.journal_mode = MEMORY'); // written once; no journal file beside it
    db.exec('CREATE TABLE IF NOT EXISTS owner.service_owner (pid INTEGER NOT NULL); DELETE FROM owner.service_owner');
    db.prepare('INSERT INTO owner.service_owner (pid) VALUES (?)').run(process.pid);
  } catch (err) {
    try {
      db.exec('DETACH DATABASE owner');
    } catch {
      // the error above says what went wrong
    }
    throw err;
  }
  const st = fs.statSync(lockFile);
  return { dev: st.dev, ino: st.ino };
}

/** The lock an owning connection ({@link openDatabase}) holds, and what became of it. */
interface Ownership {
  dataDir: string;
  /** `DATA_DIR/service.lock`. */
  file: string;
  /** Device and inode of the file locked (to see it removed or replaced: another inode at its path). */
  dev: number;
  ino: number;
  /** Set once the lock could not be taken again: every write is refused from then on. */
  lost?: DataDirInUseError | DatabaseFileError;
  /** Who is told (set by {@link keepOwnership}). */
  watch?: OwnershipWatch;
  /** True while the lock is being taken again (those statements are not checked). */
  relocking: boolean;
}

const owners = new WeakMap<Database, Ownership>();

/** What {@link keepOwnership} reports. */
export interface OwnershipWatch {
  /** The lock file was removed or replaced while the service ran, and is locked again (nobody else had taken it). */
  onRetaken(file: string): void;
  /**
   * The lock file was removed or replaced and could not be locked again: another process holds it
   * (DataDirInUseError: another service started on the folder), or what is at its path now cannot
   * be a lock (DatabaseFileError: a folder, a copy of a database, a symbolic link…). Called once,
   * possibly from within a write that is then refused (so it must not write).
   */
  onLost(err: DataDirInUseError | DatabaseFileError): void;
}

/**
 * Whether `db` (owning, with `own`) still owns its DATA_DIR, checked before each write
 * ({@link fenceWrites}) and by {@link keepOwnership}'s timer: the lock file is looked up
 * (`fs.statSync`, 3-5 µs); still the file locked, nothing more. Removed or replaced, it is locked
 * again at once (`onRetaken`) — never waiting for a lock (the connection's busy_timeout would
 * stop the event loop); when that fails, ownership is lost for good (`onLost`, once).
 * @throws DataDirLostError when ownership is lost (now or before).
 */
function holdOwnership(db: Database, own: Ownership): void {
  if (own.lost) throw new DataDirLostError(own.dataDir, own.lost);
  if (own.relocking) return;
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(own.file, { throwIfNoEntry: false });
  } catch {
    // not found through a path that is not a folder any more, not searchable…: taken again below, or lost
  }
  if (st && st.dev === own.dev && st.ino === own.ino) return;
  own.relocking = true;
  const wait = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    db.exec('DETACH DATABASE owner');
    Object.assign(own, takeOwnership(db, own.file));
  } catch (err) {
    own.lost = refusal(err, own.dataDir, own.file, 'lock');
  } finally {
    db.pragma(`busy_timeout = ${wait}`);
    own.relocking = false;
  }
  if (own.lost) {
    own.watch?.onLost(own.lost);
    throw new DataDirLostError(own.dataDir, own.lost);
  }
  own.watch?.onRetaken(own.file);
}

/**
 * Check ownership ({@link holdOwnership}) before every write of `db` that may commit: a write
 * statement run outside a transaction (autocommit), every outermost transaction of
 * `db.transaction` (before its BEGIN: the lock can be taken again only outside a transaction),
 * every `db.exec`. Statements inside a transaction are covered by the transaction's check; reads
 * (`readonly` statements) are not checked. So a service whose `service.lock` another process
 * locked commits nothing more: the write throws {@link DataDirLostError} before anything is
 * written, instead of going on until the next look of {@link keepOwnership}'s timer. What is left
 * between a check and its commit is the synchronous run of that one statement or transaction (no
 * other code runs in between); another service would have to take the lock within it and have
 * read, changed and committed the turn's state already — its start alone, from the lock to its
 * first read, takes milliseconds.
 *
 * Replaces `prepare`, `transaction` and `exec` of this connection object; `pragma` is not checked.
 */
function fenceWrites(db: Database, own: Ownership): void {
  const check = lookOutsideTransactions(db, own);
  type Fn = (...args: unknown[]) => unknown;
  const checked = <F extends Fn>(f: F): F =>
    function (this: unknown, ...args: unknown[]) {
      check();
      return f.apply(this, args);
    } as F;
  const prepare = db.prepare;
  const transaction = db.transaction;
  const exec = db.exec;
  Object.assign(db, {
    prepare(this: Database, source: string) {
      const st = prepare.call(this, source) as unknown as Record<'run' | 'get' | 'all' | 'iterate', Fn> & { readonly: boolean };
      if (!st.readonly) for (const m of ['run', 'get', 'all', 'iterate'] as const) st[m] = checked(st[m]);
      return st;
    },
    transaction(this: Database, fn: Fn) {
      const t = transaction.call(this, fn) as unknown as Fn & Record<'deferred' | 'immediate' | 'exclusive', Fn>;
      const own = checked(t) as typeof t;
      for (const mode of ['deferred', 'immediate', 'exclusive'] as const) own[mode] = checked(t[mode]);
      return Object.assign(own, { default: own, database: this });
    },
    exec: checked(exec as unknown as Fn),
  });
}

/**
 * A function checking that `db` still owns its DATA_DIR, as before each of its writes
 * ({@link holdOwnership}: a lock file removed meanwhile is taken again), for an act that is no
 * write but must not happen in a service that lost it: a turn run's model request
 * (src/turns/turn-run.ts). A no-op for a connection that holds no lock, and inside a transaction
 * (checked at its start).
 * @throws DataDirLostError (from the function returned) when ownership is lost.
 */
export function ownershipCheck(db: Database): () => void {
  const own = owners.get(db);
  return own ? lookOutsideTransactions(db, own) : () => {};
}

/**
 * {@link holdOwnership} of `db` when it is not inside a transaction (one is looked at before its
 * BEGIN, and the lock cannot be taken again inside it): the look of {@link fenceWrites} and
 * {@link ownershipCheck}.
 */
function lookOutsideTransactions(db: Database, own: Ownership): () => void {
  return () => {
    if (!db.inTransaction) holdOwnership(db, own);
  };
}

/**
 * Watch the lock file `db` holds ({@link openDatabase}) also while the service writes nothing:
 * every `intervalMs` (default 2000) ownership is checked as before each write — the lock file
 * removed or replaced (another inode at its path) is locked again at once, so that a service
 * started later on the folder is refused again, and `onRetaken` is called; when that fails
 * (another service took it meanwhile, or the path is no longer usable), `onLost`, once, and the
 * watch ends. `watch` is also told when a write found it so (writes are checked whether or not a
 * watch runs: {@link fenceWrites}); a loss found before this call is reported at once. As
 * PostgreSQL's postmaster re-checks its `postmaster.pid` and shuts down when it is gone
 * (src/backend/utils/init/miscinit.c, RecheckDataDirLockFile). A no-op for a connection that
 * holds no lock. The timer does not keep the process alive. Returns a function that stops the
 * watch (and its reports).
 */
export function keepOwnership(db: Database, watch: OwnershipWatch, intervalMs = 2000): () => void {
  const own = owners.get(db);
  if (!own) return () => {};
  own.watch = watch;
  const stop = () => {
    clearInterval(timer);
    if (own.watch === watch) own.watch = undefined;
  };
  const timer = setInterval(() => {
    if (!db.open || own.lost) return stop();
    try {
      holdOwnership(db, own);
    } catch {
      stop(); // reported by holdOwnership
    }
  }, intervalMs);
  timer.unref();
  if (own.lost) {
    stop();
    watch.onLost(own.lost);
  }
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
    let own: Ownership | undefined;
    if (opts.exclusive !== false) {
      try {
        own = { dataDir, file: lockFile, ...takeOwnership(db, lockFile), relocking: false };
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
    if (own) {
      owners.set(db, own);
      fenceWrites(db, own); // from here on, every write first checks that this service still owns DATA_DIR
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
      `DATA_DIR ${settingForDisplay(dataDir)} is in use by another service process (a running service holds ${settingForDisplay(path.join(dataDir, 'service.lock'))} locked); ` +
        'give each instance its own DATA_DIR, or run several instances on one Postgres database (DATABASE_URL, README "Run several instances")',
    );
    this.name = 'DataDirInUseError';
  }
}

/**
 * 503 `shutting_down`: a write of a service that no longer owns its DATA_DIR — its
 * `service.lock` was removed or replaced while it ran and could not be locked again
 * ({@link keepOwnership}; `cause`, the {@link DataDirInUseError} or {@link DatabaseFileError}, says
 * why) — was refused before anything was written. The service stops (exit 1, src/main.ts); a turn
 * run that meets it stops without ending its turn (the service that owns the folder now runs it).
 */
export class DataDirLostError extends DomainError {
  constructor(
    readonly dataDir: string,
    cause: DataDirInUseError | DatabaseFileError,
  ) {
    super('shutting_down', `this service no longer owns DATA_DIR ${settingForDisplay(dataDir)} and is stopping, so nothing was written: ${cause.message}`, 503);
    this.cause = cause;
  }
}

/** A `service.lock` that is a symbolic link (to `target`). */
class SymlinkLockError extends Error {
  /** The link's target as messages show it (control, invisible and bidi characters escaped: a start refusal is one line). */
  readonly target: string;
  constructor(target: string) {
    const shown = escapeUnsafeChars(target);
    super(`it is a symbolic link to ${shown}`);
    this.target = shown;
  }
}

/** A `service.lock` that is a SQLite file holding tables `names` (besides `service_owner`): not a lock file the service made. */
class NotALockFileError extends Error {
  constructor(readonly names: string[]) {
    const shown = names.map(escapeUnsafeChars); // table names are anyone's text: one line, nothing that acts on a terminal
    super(`it holds ${names.length === 1 ? 'a table' : 'tables'}: ${shown.length > 5 ? `${shown.slice(0, 5).join(', ')} and ${shown.length - 5} more` : shown.join(', ')}`);
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

/**
 * Why `file` could not be used, as {@link DatabaseFileError} says it; `file` is shown as
 * {@link settingForDisplay} shows DATA_DIR (quoted, unsafe and format characters as `\uXXXX`, when
 * it has any: `"/data/x\u202Ey/service.db" is a folder, …`).
 */
function databaseFileProblem(file: string, err: unknown, kind: 'database' | 'lock'): string {
  const e = (err ?? {}) as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const why = `${code ? `${code}: ` : ''}${(typeof e.message === 'string' ? e.message : String(err)).split('\n')[0]}`;
  const elsewhere = 'or point DATA_DIR at another folder';
  // As DATA_DIR itself is shown in a refusal: quoted, those characters as \uXXXX, when it has a character that could act on the display.
  const shown = settingForDisplay(file);
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
    if (isFolder(file)) return `${shown} is a folder, not the service's lock file (${why}): with no service running on this DATA_DIR, remove it (${holdsNothing}) ${elsewhere}`;
    if (err instanceof SymlinkLockError) return `${shown} is a symbolic link (to ${err.target}), not the service's lock file: with no service running on this DATA_DIR, remove the link (${holdsNothing}) ${elsewhere}`;
    if (err instanceof NotALockFileError) {
      return `${shown} is a SQLite database with data (${err.message}), not the service's lock file (which holds only the table service_owner) — a copy of service.db?: with no service running on this DATA_DIR, move it away (keep it if you need what it holds; the service creates its lock file again) ${elsewhere}`;
    }
    if (code === 'SQLITE_NOTADB') return `${shown} is not a SQLite file, so not the service's lock file (${why}): with no service running on this DATA_DIR, delete it (${holdsNothing}) ${elsewhere}`;
    return `cannot use the lock file ${shown} (${why}): with no service running on this DATA_DIR, delete it (${holdsNothing}) ${elsewhere}`;
  }
  if (isFolder(file)) return `${shown} is a folder, not a SQLite database file (${why}): move it away (the service creates its database there) ${elsewhere}`;
  if (code === 'SQLITE_NOTADB') return `${shown} is not a SQLite database (${why}): move it away (the service creates a new database there) ${elsewhere}`;
  return `cannot open the SQLite database ${shown} (${why}): check that file, ${elsewhere}`;
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

/** Where symbolic link `file` points (as stored), or `?` when it cannot be read. */
function readLink(file: string): string {
  try {
    return fs.readlinkSync(file);
  } catch {
    return '?';
  }
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
