/** Workflows and their tasks (same columns as the SQLite store; JSON as text, times as ISO text). */
import type { Migration } from '../migrate.js';

export const workflows: Migration = {
  version: 2,
  name: 'workflows',
  sql: `
    CREATE TABLE workflows (
      id TEXT COLLATE "C" PRIMARY KEY,
      agent_id TEXT NOT NULL,
      title TEXT NOT NULL,
      status TEXT NOT NULL,
      concurrency INTEGER NOT NULL,
      brain BOOLEAN NOT NULL DEFAULT false,
      model TEXT,
      created_at TEXT NOT NULL,
      completed_at TEXT,
      summary TEXT
    );
    CREATE INDEX workflows_agent ON workflows (agent_id, id);
    CREATE INDEX workflows_status ON workflows (status, id);
    CREATE TABLE workflow_tasks (
      workflow_id TEXT NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
      idx INTEGER NOT NULL,
      agent_id TEXT NOT NULL,
      label TEXT NOT NULL,
      prompt TEXT NOT NULL,
      result_schema TEXT NOT NULL,
      status TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      result TEXT,
      error TEXT,
      turn_ids TEXT NOT NULL DEFAULT '[]',
      PRIMARY KEY (workflow_id, idx)
    );
    CREATE INDEX workflow_tasks_running ON workflow_tasks (agent_id) WHERE status = 'running';`,
};
