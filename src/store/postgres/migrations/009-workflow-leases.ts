/**
 * Workflow leases: the instance driving a running workflow (`owner`, `lease_until` in ms since the
 * epoch, NULL = nobody) and a stored cancel request any instance can make (`cancel_requested_at`).
 */
import type { Migration } from '../migrate.js';

export const workflowLeases: Migration = {
  version: 9,
  name: 'workflow_leases',
  sql: `
    ALTER TABLE workflows ADD COLUMN owner TEXT, ADD COLUMN lease_until BIGINT, ADD COLUMN cancel_requested_at TEXT;
    CREATE INDEX workflows_running_lease ON workflows (lease_until) WHERE status = 'running';`,
};
