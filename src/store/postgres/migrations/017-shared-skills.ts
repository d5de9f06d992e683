/**
 * Installed skills and per-agent enabled lists shared by every instance (src/skills/skill-registry.ts):
 * - `installed_skills`: one row per skill installed over the API, holding the uploaded archive
 *   (≤ 10 MiB, `.tar.gz` or `.zip` as sent) and an `etag` that changes with every install, so an
 *   instance can tell whether its unpacked copy in DATA_DIR/skills is current;
 * - `agent_skills`: the skills enabled per agent (a JSON list of names).
 */
import type { Migration } from '../migrate.js';

export const sharedSkills: Migration = {
  version: 17,
  name: 'shared_skills',
  sql: `
    CREATE TABLE installed_skills (
      name TEXT COLLATE "C" PRIMARY KEY,
      etag TEXT NOT NULL,
      content_type TEXT NOT NULL,
      archive BYTEA NOT NULL,
      installed_at TEXT NOT NULL
    );
    CREATE TABLE agent_skills (
      agent_id TEXT PRIMARY KEY,
      enabled JSONB NOT NULL,
      updated_at TEXT NOT NULL
    );`,
};
