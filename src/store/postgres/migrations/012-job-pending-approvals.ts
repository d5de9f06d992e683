/**
 * Background jobs waiting for a person's decision (status `waiting_on_approval`) store the calls
 * they wait on (src/jobs/types.ts `JobApproval[]` as JSON text), like the SQLite job store.
 */
import type { Migration } from '../migrate.js';

export const jobPendingApprovals: Migration = {
  version: 12,
  name: 'job_pending_approvals',
  sql: `ALTER TABLE background_jobs ADD COLUMN pending_approvals TEXT NOT NULL DEFAULT '[]';`,
};
