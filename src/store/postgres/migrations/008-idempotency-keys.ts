/**
 * Idempotency keys of resources whose own table has no key column (workflows): same columns as
 * the SQLite `idempotency_keys` table (src/http/idempotency.ts), times as ISO text.
 */
import type { Migration } from '../migrate.js';

export const idempotencyKeys: Migration = {
  version: 8,
  name: 'idempotency_keys',
  sql: `
    CREATE TABLE idempotency_keys (
      scope TEXT NOT NULL,
      key TEXT NOT NULL,
      request_hash TEXT NOT NULL,
      resource_id TEXT,
      created_at TEXT NOT NULL,
      PRIMARY KEY (scope, key)
    );`,
};
