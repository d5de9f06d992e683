/**
 * The port for installed skills shared by several instances (Postgres with DATABASE_URL,
 * src/store/postgres/pg-skill-catalog.ts). The catalog holds each installed skill's archive as
 * uploaded, with an `etag` that changes on every install, and the per-agent enabled lists; each
 * instance unpacks the archives into its own DATA_DIR/skills (src/skills/skill-registry.ts
 * `sync`). Without it (SQLite), installed skills live only in DATA_DIR/skills and the enabled
 * lists in the instance's SQLite database.
 *
 * Every method may throw DatabaseUnavailableError (HTTP 503 `database_unavailable`) while the
 * database cannot be reached.
 */
import type { ArchiveContentType } from './skill-install.js';

/** The current version of one installed skill. */
export interface SkillVersion {
  /** Opaque; changes with every install (a replacement of the same bytes included). */
  etag: string;
  /** ISO 8601 time of the install that made this version. */
  installedAt: string;
}

/** One installed skill's archive, as uploaded. */
export interface StoredSkillArchive extends SkillVersion {
  name: string;
  contentType: ArchiveContentType;
  /** The archive bytes (≤ MAX_ARCHIVE_BYTES, 10 MiB). */
  archive: Buffer;
}

export interface SkillCatalog {
  /** name → version of every installed skill (one small query: no archives). */
  versions(): Promise<Map<string, SkillVersion>>;
  /** The archive of skill `name`, or undefined when it is not installed. */
  archive(name: string): Promise<StoredSkillArchive | undefined>;
  /**
   * Store (or replace) skill `name`'s archive under a new etag.
   * @returns the new version and whether no skill of that name was installed before.
   */
  put(name: string, archive: Buffer, contentType: ArchiveContentType): Promise<SkillVersion & { created: boolean }>;
  /**
   * Delete skill `name` and, in the same transaction, take it out of every agent's enabled list
   * (the other names keep their order). Nothing changes when it was not installed.
   * @returns false when it was not installed.
   */
  delete(name: string): Promise<boolean>;
  /** Agent `agentId`'s enabled skill names (empty for an agent never set). */
  enabledFor(agentId: string): Promise<string[]>;
  /** Replace agent `agentId`'s enabled list with `names` (already checked and deduplicated). */
  setEnabled(agentId: string, names: string[]): Promise<void>;
}
