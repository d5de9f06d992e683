/**
 * Idempotency key rows on Postgres (table `idempotency_keys`, migration 8), shared by every
 * instance: the reservation is one `INSERT … ON CONFLICT DO NOTHING` on the primary key
 * (scope, key), so of two instances reserving one key at the same moment exactly one wins.
 */
import type { IdempotencyKeyRow, IdempotencyKeyRows } from '../idempotency-keys.js';
import type { PgQueryable } from './pg-database.js';

export class PgIdempotencyKeyRows implements IdempotencyKeyRows {
  constructor(private readonly db: PgQueryable) {}

  async reserve(scope: string, key: string, hash: string, at: string): Promise<boolean> {
    const r = await this.db.query(
      'INSERT INTO idempotency_keys (scope, key, request_hash, resource_id, created_at) VALUES ($1, $2, $3, NULL, $4) ON CONFLICT DO NOTHING',
      [scope, key, hash, at],
    );
    return r.rowCount === 1;
  }

  async get(scope: string, key: string): Promise<IdempotencyKeyRow | undefined> {
    const { rows } = await this.db.query<IdempotencyKeyRow>('SELECT request_hash, resource_id FROM idempotency_keys WHERE scope = $1 AND key = $2', [scope, key]);
    return rows[0];
  }

  async complete(scope: string, key: string, resourceId: string): Promise<void> {
    await this.db.query('UPDATE idempotency_keys SET resource_id = $1 WHERE scope = $2 AND key = $3', [resourceId, scope, key]);
  }

  async release(scope: string, key: string): Promise<void> {
    await this.db.query('DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND resource_id IS NULL', [scope, key]);
  }
}
