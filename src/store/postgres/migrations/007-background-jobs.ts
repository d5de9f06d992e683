/** Background jobs (same columns as the SQLite job store, src/jobs/sqlite-job-store.ts). */
import type { Migration } from '../migrate.js';

export const backgroundJobs: Migration = {
  version: 7,
  name: 'background_jobs',
  sql: `
    CREATE TABLE background_jobs (
      id TEXT COLLATE "C" PRIMARY KEY,
      agent_id TEXT NOT NULL,
      title TEXT NOT NULL,
      task TEXT NOT NULL,
      status TEXT NOT NULL,
      model TEXT,
      source_turn_id TEXT,
      source_call_id TEXT,
      respawned_from TEXT,
      respawned_to TEXT,
      notify BOOLEAN NOT NULL DEFAULT true,
      turn_ids TEXT NOT NULL DEFAULT '[]',
      pending_messages TEXT NOT NULL DEFAULT '[]',
      question TEXT,
      notice TEXT,
      output_text TEXT,
      error TEXT,
      attempts INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      started_at TEXT,
      finished_at TEXT,
      updated_at TEXT NOT NULL
    );
    CREATE UNIQUE INDEX background_jobs_source ON background_jobs (source_turn_id, source_call_id);
    CREATE INDEX background_jobs_agent ON background_jobs (agent_id, id);
    CREATE INDEX background_jobs_status ON background_jobs (status, id);`,
};
