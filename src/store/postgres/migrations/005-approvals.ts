/**
 * Tool approvals (src/store/approval-store.ts): one row per call of a turn that waits (or waited)
 * for the user. Same columns as the SQLite store; JSON as text, times as ISO text.
 */
import type { Migration } from '../migrate.js';

export const approvals: Migration = {
  version: 5,
  name: 'approvals',
  sql: `
    CREATE TABLE turn_approvals (
      turn_id TEXT NOT NULL,
      call_id TEXT NOT NULL,
      name TEXT NOT NULL,
      arguments TEXT NOT NULL,
      label TEXT,
      requested_at TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      decision TEXT,
      reason TEXT,
      edited_arguments TEXT,
      decided_at TEXT,
      decided_by TEXT,
      seq BIGSERIAL,
      PRIMARY KEY (turn_id, call_id)
    );
    CREATE INDEX turn_approvals_pending ON turn_approvals (expires_at) WHERE decision IS NULL;`,
};
