/**
 * Turns (records, requests, idempotency keys, leases, stored cancel, task bindings), their
 * append-only transcript items and checkpoints, and the event log of every stream (turns,
 * workflows). Same columns as the SQLite stores; JSON as text, times as ISO text except
 * `lease_until` (ms since the epoch; 0 = released by its owner).
 */
import type { Migration } from '../migrate.js';

export const turns: Migration = {
  version: 4,
  name: 'turns',
  sql: `
    CREATE TABLE turns (
      id TEXT COLLATE "C" PRIMARY KEY,
      agent_id TEXT NOT NULL,
      status TEXT NOT NULL,
      kind TEXT NOT NULL,
      origin TEXT NOT NULL,
      model TEXT NOT NULL,
      created_at TEXT NOT NULL,
      started_at TEXT,
      completed_at TEXT,
      output_text TEXT,
      stop_reason TEXT,
      steps INTEGER NOT NULL DEFAULT 0,
      input_tokens BIGINT NOT NULL DEFAULT 0,
      output_tokens BIGINT NOT NULL DEFAULT 0,
      usage_unknown BOOLEAN NOT NULL DEFAULT false,
      error TEXT,
      metadata TEXT,
      request TEXT NOT NULL,
      idempotency_key TEXT UNIQUE,
      request_hash TEXT,
      transcript TEXT,
      owner TEXT,
      lease_until BIGINT,
      cancel_requested_at TEXT,
      binding TEXT,
      trace_id TEXT,
      trace_parent TEXT
    );
    CREATE INDEX turns_agent ON turns (agent_id, id);
    CREATE INDEX turns_status ON turns (status, id);
    CREATE INDEX turns_claimable ON turns (id) WHERE status IN ('queued', 'running');
    CREATE TABLE turn_items (
      turn_id TEXT NOT NULL,
      idx INTEGER NOT NULL,
      data TEXT NOT NULL,
      PRIMARY KEY (turn_id, idx)
    );
    CREATE TABLE turn_checkpoints (
      turn_id TEXT PRIMARY KEY,
      version INTEGER NOT NULL,
      step INTEGER NOT NULL,
      item_count INTEGER NOT NULL,
      state TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE TABLE event_log (
      stream_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      type TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (stream_id, seq)
    );`,
};
