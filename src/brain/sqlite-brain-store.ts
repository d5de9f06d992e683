/**
 * The brain store on SQLite (better-sqlite3 12, whose bundled SQLite has FTS5). Tables, created on
 * the shared handle:
 * - `brain_pages(id, agent_id, slug, title, markdown, created_at, updated_at)`, unique (agent_id, slug);
 * - `brain_pages_fts`: an FTS5 external-content index over (title, markdown), kept in step by triggers
 *   (the pattern of https://sqlite.org/fts5.html §4.4.3). Ranking: bm25 with title weight 4.
 */
import type { Database } from '../store/database.js';
import { listLimit, searchLimit, validatePage, type BrainPage, type BrainPageSummary, type BrainStore, type RecallHit } from './brain-store.js';
import { toFtsMatch } from './fts-query.js';

interface PageRow extends BrainPage {
  id: number;
}

export class SqliteBrainStore implements BrainStore {
  private readonly stmts;

  constructor(private readonly db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS brain_pages (
        id INTEGER PRIMARY KEY,
        agent_id TEXT NOT NULL,
        slug TEXT NOT NULL,
        title TEXT NOT NULL,
        markdown TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (agent_id, slug)
      );
      CREATE VIRTUAL TABLE IF NOT EXISTS brain_pages_fts USING fts5(
        title, markdown, content='brain_pages', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER IF NOT EXISTS brain_pages_ai AFTER INSERT ON brain_pages BEGIN
        INSERT INTO brain_pages_fts(rowid, title, markdown) VALUES (new.id, new.title, new.markdown);
      END;
      CREATE TRIGGER IF NOT EXISTS brain_pages_ad AFTER DELETE ON brain_pages BEGIN
        INSERT INTO brain_pages_fts(brain_pages_fts, rowid, title, markdown) VALUES ('delete', old.id, old.title, old.markdown);
      END;
      CREATE TRIGGER IF NOT EXISTS brain_pages_au AFTER UPDATE ON brain_pages BEGIN
        INSERT INTO brain_pages_fts(brain_pages_fts, rowid, title, markdown) VALUES ('delete', old.id, old.title, old.markdown);
        INSERT INTO brain_pages_fts(rowid, title, markdown) VALUES (new.id, new.title, new.markdown);
      END;
    `);
    this.stmts = {
      get: db.prepare('SELECT * FROM brain_pages WHERE agent_id = ? AND slug = ?'),
      insert: db.prepare(
        'INSERT INTO brain_pages (agent_id, slug, title, markdown, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      update: db.prepare('UPDATE brain_pages SET title = ?, markdown = ?, updated_at = ? WHERE id = ?'),
      delete: db.prepare('DELETE FROM brain_pages WHERE agent_id = ? AND slug = ?'),
      list: db.prepare(
        `SELECT agent_id, slug, title, created_at, updated_at, length(CAST(markdown AS BLOB)) AS bytes
         FROM brain_pages WHERE agent_id = ? AND slug > ? ORDER BY slug LIMIT ?`,
      ),
      search: db.prepare(
        `SELECT p.slug AS reference, p.title AS title,
                snippet(brain_pages_fts, 1, '**', '**', '…', 24) AS snippet,
                bm25(brain_pages_fts, 4.0, 1.0) AS score
         FROM brain_pages_fts JOIN brain_pages p ON p.id = brain_pages_fts.rowid
         WHERE brain_pages_fts MATCH ? AND p.agent_id = ?
         ORDER BY score LIMIT ?`,
      ),
    };
  }

  async put(agentId: string, slug: string, input: { title: string; markdown: string }): Promise<{ page: BrainPage; created: boolean }> {
    validatePage(slug, input);
    const now = new Date().toISOString();
    return this.db.transaction(() => {
      const existing = this.stmts.get.get(agentId, slug) as PageRow | undefined;
      if (existing) {
        this.stmts.update.run(input.title, input.markdown, now, existing.id);
        return { page: { ...strip(existing), title: input.title, markdown: input.markdown, updated_at: now }, created: false };
      }
      this.stmts.insert.run(agentId, slug, input.title, input.markdown, now, now);
      return { page: { agent_id: agentId, slug, title: input.title, markdown: input.markdown, created_at: now, updated_at: now }, created: true };
    })();
  }

  async get(agentId: string, slug: string): Promise<BrainPage | undefined> {
    const row = this.stmts.get.get(agentId, slug) as PageRow | undefined;
    return row ? strip(row) : undefined;
  }

  async delete(agentId: string, slug: string): Promise<boolean> {
    return this.stmts.delete.run(agentId, slug).changes > 0;
  }

  async list(agentId: string, options: { limit?: number; after?: string } = {}): Promise<{ pages: BrainPageSummary[]; next: string | null }> {
    const limit = listLimit(options.limit);
    const rows = this.stmts.list.all(agentId, options.after ?? '', limit + 1) as BrainPageSummary[];
    const pages = rows.slice(0, limit);
    return { pages, next: rows.length > limit ? pages[pages.length - 1].slug : null };
  }

  async search(agentId: string, query: string, limit?: number): Promise<RecallHit[]> {
    const match = toFtsMatch(query);
    if (match === null) return [];
    return this.stmts.search.all(match, agentId, searchLimit(limit)) as RecallHit[];
  }
}

function strip(row: PageRow): BrainPage {
  const { id: _id, ...page } = row;
  return page;
}
