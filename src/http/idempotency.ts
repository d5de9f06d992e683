/**
 * The one idempotency behaviour of every create route (POST /v1/turns, /v1/schedules,
 * /v1/workflows; README.md "Idempotency"):
 * - `Idempotency-Key: <1..255 visible ASCII>` is optional; client keys live in their own `api:`
 *   namespace, so they never meet the keys the service uses itself;
 * - the same key with the same body answers exactly as the first request did (same status, the
 *   same resource) plus `Idempotent-Replayed: true`; nothing is created twice;
 * - the same key with a different body is 409 `idempotency_key_reused` (details name the
 *   existing resource: `turn_id` / `schedule_id` / `workflow_id`).
 * Turns and schedules keep their key on their own row; {@link SqliteIdempotencyKeys} records
 * keys for resources whose store has no such column (workflows).
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, idempotencyKeyReused } from '../errors.js';
import type { Database } from '../store/database.js';
import { IdempotencyKeySchema } from '../turns/request-schemas.js';

/** Response header set on a replayed create. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** The request's client key in the `api:` namespace, or undefined without the header. @throws ZodError for a bad key. */
export function clientIdempotencyKey(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  return raw === undefined ? undefined : `api:${IdempotencyKeySchema.parse(raw)}`;
}

/** Mark `reply` as the replay of an earlier create with the same key. */
export function markReplayed(reply: FastifyReply): FastifyReply {
  return reply.header(REPLAYED_HEADER, 'true');
}

/** Stable hash of a request body (sorted keys), for comparing a replay with the first request. */
export function bodyHash(value: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sorted) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])])) : v;
  return createHash('sha256').update(JSON.stringify(sorted(value)) ?? '').digest('hex');
}

/** Outcome of {@link SqliteIdempotencyKeys.run}. */
export interface IdempotentResult<T> {
  value: T;
  replayed: boolean;
}

/**
 * Idempotency keys in the service database: `idempotency_keys(scope, key, request_hash,
 * resource_id, created_at)`. A key is reserved before the resource is created, so two requests
 * racing with the same key create one resource: the second waits (up to `waitMs`) for the first
 * and replays it.
 */
export class SqliteIdempotencyKeys {
  private readonly stmts;

  constructor(db: Database, private readonly waitMs = 10_000) {
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
      get: db.prepare<[string, string], { request_hash: string; resource_id: string | null }>('SELECT request_hash, resource_id FROM idempotency_keys WHERE scope = ? AND key = ?'),
      complete: db.prepare('UPDATE idempotency_keys SET resource_id = ? WHERE scope = ? AND key = ?'),
      release: db.prepare('DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND resource_id IS NULL'),
    };
  }

  /**
   * Create once per (scope, key): without a key, `create()` runs. With a new key, `create()` runs
   * and its resource id (`idOf`) is recorded. With a known key and the same `hash`, `load(id)`
   * returns the first resource (`replayed: true`).
   * @throws DomainError 409 `idempotency_key_reused` for a different hash; whatever `create` throws
   *   (the key is then free again).
   */
  async run<T>(
    scope: string,
    key: string | undefined,
    hash: string,
    fns: { create: () => Promise<T>; idOf: (value: T) => string; load: (id: string) => Promise<T | undefined> },
  ): Promise<IdempotentResult<T>> {
    if (key === undefined) return { value: await fns.create(), replayed: false };
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      if (this.stmts.reserve.run(scope, key, hash, new Date().toISOString()).changes === 1) break;
      const row = this.stmts.get.get(scope, key);
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
      this.stmts.complete.run(fns.idOf(value), scope, key);
      return { value, replayed: false };
    } catch (err) {
      this.stmts.release.run(scope, key);
      throw err;
    }
  }
}

const KEYS = new WeakMap<Database, SqliteIdempotencyKeys>();

/** The idempotency key table of `db` (created on first use). */
export function idempotencyKeys(db: Database): SqliteIdempotencyKeys {
  let keys = KEYS.get(db);
  if (!keys) KEYS.set(db, (keys = new SqliteIdempotencyKeys(db)));
  return keys;
}
