/**
 * Background jobs record the skills of their turns when they are created (src/jobs/types.ts
 * `JobRecord.skills`, JSON text of the names; null for jobs stored before), like the SQLite job store.
 */
import type { Migration } from '../migrate.js';

export const jobSkills: Migration = {
  version: 21,
  name: 'job_skills',
  sql: `ALTER TABLE background_jobs ADD COLUMN skills TEXT;`,
};
