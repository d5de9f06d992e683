/**
 * Idempotency keys of resources whose own table has no key column (workflows, steering messages; turns and
 * schedules keep theirs on their row): `idempotency_keys(scope, key, request_hash, resource_id,
 * created_at)` on the service's engine — SQLite ({@link SqliteIdempotencyKeyRows}) or Postgres
 * (src/store/postgres/pg-idempotency-keys.ts, shared by every instance). The HTTP side (header,
 * replay marker, body hash) is src/http/idempotency.ts; README.md "Idempotency".
 */
import { DomainError, idempotencyKeyReused } from '../errors.js';
import type { Database } from './database.js';

/** Outcome of {@link IdempotencyKeys.run}. */
export interface IdempotentResult<T> {
  value: T;
  replayed: boolean;
}

/** A recorded key: the hash of its first request and the resource made for it (null while being made). */
export interface IdempotencyKeyRow {
  request_hash: string;
  resource_id: string | null;
}

/**
 * Rows of `idempotency_keys(scope, key, request_hash, resource_id, created_at)`, one
 * implementation per engine. `reserve` must be atomic across every process sharing the table
 * (INSERT … ON CONFLICT DO NOTHING / INSERT OR IGNORE on the primary key (scope, key)).
 */
export interface IdempotencyKeyRows {
  /** Insert the key with no resource yet; false when it exists. */
  reserve(scope: string, key: string, hash: string, at: string): Promise<boolean>;
  get(scope: string, key: string): Promise<IdempotencyKeyRow | undefined>;
  /** Record the resource made for a reserved key. */
  complete(scope: string, key: string, resourceId: string): Promise<void>;
  /** Drop a reservation whose create failed (only while it has no resource). */
  release(scope: string, key: string): Promise<void>;
}

/** The SQLite table on the service database (created here). */
export class SqliteIdempotencyKeyRows implements IdempotencyKeyRows {
  private readonly stmts;

  constructor(db: Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS idempotency_keys (
      scope TEXT NOT NULL,
      key TEXT NOT NULL,
      request_hash TEXT NOT NULL,
      resource_id TEXT,
      created_at TEXT NOT NULL,
      PRIMARY KEY (scope, key)
    )`);
    this.stmts = {
      reserve: db.prepare('INSERT OR IGNORE INTO idempotency_keys (scope, key, request_hash, resource_id, created_at) VALUES (?, ?, ?, NULL, ?)'),
      get: db.prepare<[string, string], IdempotencyKeyRow>('SELECT request_hash, resource_id FROM idempotency_keys WHERE scope = ? AND key = ?'),
      complete: db.prepare('UPDATE idempotency_keys SET resource_id = ? WHERE scope = ? AND key = ?'),
      release: db.prepare('DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND resource_id IS NULL'),
    };
  }

  async reserve(scope: string, key: string, hash: string, at: string): Promise<boolean> {
    return this.stmts.reserve.run(scope, key, hash, at).changes === 1;
  }

  async get(scope: string, key: string): Promise<IdempotencyKeyRow | undefined> {
    return this.stmts.get.get(scope, key);
  }

  async complete(scope: string, key: string, resourceId: string): Promise<void> {
    this.stmts.complete.run(resourceId, scope, key);
  }

  async release(scope: string, key: string): Promise<void> {
    this.stmts.release.run(scope, key);
  }
}

/**
 * Idempotency keys on one engine's `idempotency_keys` rows. A key is reserved before the resource
 * is created, so two requests racing with the same key (on one instance or on two) create one
 * resource: the second waits (up to `waitMs`) for the first and replays it.
 */
export class IdempotencyKeys {
  constructor(private readonly rows: IdempotencyKeyRows, private readonly waitMs = 10_000) {}

  /** The recorded key (its first request's hash and resource id), or undefined when unknown. */
  find(scope: string, key: string): Promise<IdempotencyKeyRow | undefined> {
    return this.rows.get(scope, key);
  }

  /**
   * Create once per (scope, key): without a key, `create()` runs. With a new key, `create()` runs
   * and its resource id (`idOf`) is recorded. With a known key and the same `hash`, `load(id)`
   * returns the first resource (`replayed: true`).
   * @throws DomainError 409 `idempotency_key_reused` for a different hash, 409
   *   `idempotency_key_in_use` when the first request is still running after `waitMs`; whatever
   *   `create` throws (the key is then free again).
   */
  async run<T>(
    scope: string,
    key: string | undefined,
    hash: string,
    fns: { create: () => Promise<T>; idOf: (value: T) => string; load: (id: string) => Promise<T | undefined> },
  ): Promise<IdempotentResult<T>> {
    if (key === undefined) return { value: await fns.create(), replayed: false };
    const { rows } = this;
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      if (await rows.reserve(scope, key, hash, new Date().toISOString())) break;
      const row = await rows.get(scope, key);
      if (!row) continue; // released in between: try to reserve again
      if (row.request_hash !== hash) throw idempotencyKeyReused(scope, row.resource_id ?? '(being created)');
      if (row.resource_id !== null) {
        const existing = await fns.load(row.resource_id);
        if (existing !== undefined) return { value: existing, replayed: true };
      }
      if (Date.now() > deadline) throw new DomainError('idempotency_key_in_use', 'a request with this Idempotency-Key is still being processed; retry in a moment', 409);
      await new Promise((r) => setTimeout(r, 50));
    }
    try {
      const value = await fns.create();
      await rows.complete(scope, key, fns.idOf(value));
      return { value, replayed: false };
    } catch (err) {
      await rows.release(scope, key).catch(() => undefined); // the create's error is the one to report
      throw err;
    }
  }
}
