/**
 * Installed skills and enabled lists on Postgres (tables of migration 17), shared by every
 * instance: see src/skills/skill-catalog.ts for the contract. A new etag is a random UUID per
 * install; `versions()` reads names and etags only, so instances can check it on every request
 * and turn for the price of one small query.
 */
import { randomUUID } from 'node:crypto';
import type { SkillCatalog, SkillVersion, StoredSkillArchive } from '../../skills/skill-catalog.js';
import type { ArchiveContentType } from '../../skills/skill-install.js';
import type { PgDatabase } from './pg-database.js';

export class PgSkillCatalog implements SkillCatalog {
  constructor(private readonly db: PgDatabase) {}

  async versions(): Promise<Map<string, SkillVersion>> {
    const { rows } = await this.db.query<{ name: string; etag: string; installed_at: string }>('SELECT name, etag, installed_at FROM installed_skills');
    return new Map(rows.map((r) => [r.name, { etag: r.etag, installedAt: r.installed_at }]));
  }

  async archive(name: string): Promise<StoredSkillArchive | undefined> {
    const { rows } = await this.db.query<{ etag: string; installed_at: string; content_type: ArchiveContentType; archive: Buffer }>(
      'SELECT etag, installed_at, content_type, archive FROM installed_skills WHERE name = $1',
      [name],
    );
    const r = rows[0];
    return r && { name, etag: r.etag, installedAt: r.installed_at, contentType: r.content_type, archive: r.archive };
  }

  async put(name: string, archive: Buffer, contentType: ArchiveContentType): Promise<SkillVersion & { created: boolean }> {
    const etag = randomUUID();
    const installedAt = new Date().toISOString();
    // xmax = 0 only for a freshly inserted row version: tells insert from update in one statement.
    const { rows } = await this.db.query<{ created: boolean }>(
      `INSERT INTO installed_skills (name, etag, content_type, archive, installed_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (name) DO UPDATE SET etag = EXCLUDED.etag, content_type = EXCLUDED.content_type, archive = EXCLUDED.archive, installed_at = EXCLUDED.installed_at
       RETURNING (xmax = 0) AS created`,
      [name, etag, contentType, archive, installedAt],
    );
    return { etag, installedAt, created: rows[0].created };
  }

  async delete(name: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if ((await tx.query('DELETE FROM installed_skills WHERE name = $1', [name])).rowCount === 0) return false;
      // jsonb - text drops every element equal to the name and keeps the others' order.
      await tx.query(`UPDATE agent_skills SET enabled = enabled - $1::text, updated_at = $2 WHERE enabled @> jsonb_build_array($1::text)`, [name, new Date().toISOString()]);
      return true;
    });
  }

  async enabledFor(agentId: string): Promise<string[]> {
    const { rows } = await this.db.query<{ enabled: string[] }>('SELECT enabled FROM agent_skills WHERE agent_id = $1', [agentId]);
    return rows[0]?.enabled ?? [];
  }

  async setEnabled(agentId: string, names: string[]): Promise<void> {
    await this.db.query(
      `INSERT INTO agent_skills (agent_id, enabled, updated_at) VALUES ($1, $2::jsonb, $3)
       ON CONFLICT (agent_id) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = EXCLUDED.updated_at`,
      [agentId, JSON.stringify(names), new Date().toISOString()],
    );
  }
}
