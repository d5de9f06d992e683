/**
 * Brain pages with Postgres full-text search: a stored generated `tsvector` (title weight A, body
 * weight D, the language-neutral `simple` configuration) under a GIN index.
 */
import type { Migration } from '../migrate.js';

export const brain: Migration = {
  version: 3,
  name: 'brain',
  sql: `
    CREATE TABLE brain_pages (
      id BIGSERIAL PRIMARY KEY,
      agent_id TEXT NOT NULL,
      slug TEXT COLLATE "C" NOT NULL,
      title TEXT NOT NULL,
      markdown TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      search TSVECTOR GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', title), 'A') || setweight(to_tsvector('simple', markdown), 'D')
      ) STORED,
      UNIQUE (agent_id, slug)
    );
    CREATE INDEX brain_pages_search ON brain_pages USING GIN (search);`,
};
