/** Schedules and their runs (same columns as the SQLite store; times in ms since the epoch, JSON as text). */
import type { Migration } from '../migrate.js';

export const schedules: Migration = {
  version: 1,
  name: 'schedules',
  sql: `
    CREATE TABLE schedules (
      id TEXT COLLATE "C" PRIMARY KEY,
      agent_id TEXT NOT NULL,
      name TEXT NOT NULL,
      status TEXT NOT NULL,
      when_json TEXT NOT NULL,
      request_json TEXT NOT NULL,
      next_run_at BIGINT,
      last_run_at BIGINT,
      run_count INTEGER NOT NULL DEFAULT 0,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      created_by TEXT NOT NULL,
      idempotency_key TEXT UNIQUE,
      request_hash TEXT
    );
    CREATE INDEX schedules_due ON schedules (status, next_run_at);
    CREATE INDEX schedules_agent ON schedules (agent_id, id);
    CREATE TABLE schedule_runs (
      id TEXT COLLATE "C" PRIMARY KEY,
      schedule_id TEXT NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
      agent_id TEXT NOT NULL,
      slot_at BIGINT NOT NULL,
      status TEXT NOT NULL,
      claimed_at BIGINT NOT NULL,
      claimed_by TEXT NOT NULL,
      started_at BIGINT,
      turn_id TEXT,
      missed_slots INTEGER NOT NULL DEFAULT 0,
      error_json TEXT,
      request_json TEXT NOT NULL
    );
    CREATE INDEX schedule_runs_by_schedule ON schedule_runs (schedule_id, id);
    CREATE INDEX schedule_runs_claimed ON schedule_runs (status);`,
};
