/**
 * BrainStore: a per-agent store of Markdown pages with full-text search (SQLite FTS5, available in
 * better-sqlite3 12's bundled SQLite). Tables, created on the shared handle:
 * - `brain_pages(id, agent_id, slug, title, markdown, created_at, updated_at)`, unique (agent_id, slug);
 * - `brain_pages_fts`: an FTS5 external-content index over (title, markdown), kept in step by triggers
 *   (the pattern of https://sqlite.org/fts5.html §4.4.3).
 * Used by the REST routes (routes/brain.ts) to write pages and by the `recall`/`get_page` tools to read them.
 */
import { DomainError } from '../errors.js';
import type { Database } from '../store/database.js';
import { toFtsMatch } from './fts-query.js';

/** A page slug (its name within the agent, and the `reference` tools use): `[A-Za-z0-9][A-Za-z0-9._-]{0,127}`. */
export const SLUG_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const MAX_TITLE_CHARS = 300;
/** Markdown size limit per page, bytes (UTF-8). */
export const MAX_PAGE_BYTES = 512 * 1024;

export interface BrainPage {
  agent_id: string;
  slug: string;
  title: string;
  markdown: string;
  /** ISO 8601. */
  created_at: string;
  updated_at: string;
}

export type BrainPageSummary = Omit<BrainPage, 'markdown'> & { bytes: number };

export interface RecallHit {
  /** The page's slug: pass it to `get_page` as `reference`. */
  reference: string;
  title: string;
  /** Body text around the matches (matched words in `**bold**`, cut with `…`); the title is separate. */
  snippet: string;
  /** bm25 rank (lower is better; SQLite returns negative numbers). */
  score: number;
}

/** Bad page input: 400 `{error: {code: 'invalid_page', message, details}}`, details one line per problem. */
export class BrainInputError extends DomainError {
  declare readonly details: string[];
  constructor(message: string, details: string[] = []) {
    super('invalid_page', message, 400, details);
  }
}

interface PageRow extends BrainPage {
  id: number;
}

export class BrainStore {
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

  /**
   * Create or replace the page `slug` of `agentId`.
   * @returns the stored page and whether it was newly created.
   * @throws BrainInputError for a bad slug, an empty/long title or an oversized body.
   */
  put(agentId: string, slug: string, input: { title: string; markdown: string }): { page: BrainPage; created: boolean } {
    const problems: string[] = [];
    if (!SLUG_PATTERN.test(slug)) problems.push(`slug: must match ${SLUG_PATTERN.source}`);
    if (typeof input.title !== 'string' || input.title.trim() === '') problems.push('title: must be a non-empty string');
    else if (input.title.length > MAX_TITLE_CHARS) problems.push(`title: at most ${MAX_TITLE_CHARS} characters`);
    if (typeof input.markdown !== 'string') problems.push('markdown: must be a string');
    else if (Buffer.byteLength(input.markdown, 'utf8') > MAX_PAGE_BYTES) problems.push(`markdown: at most ${MAX_PAGE_BYTES} bytes`);
    if (problems.length > 0) throw new BrainInputError('invalid brain page', problems);
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

  /** The page, or undefined. */
  get(agentId: string, slug: string): BrainPage | undefined {
    const row = this.stmts.get.get(agentId, slug) as PageRow | undefined;
    return row ? strip(row) : undefined;
  }

  /** Delete the page; false when there was none. */
  delete(agentId: string, slug: string): boolean {
    return this.stmts.delete.run(agentId, slug).changes > 0;
  }

  /**
   * Pages of `agentId` ordered by slug, `limit` (1..200) at a time after the slug `after`.
   * `next` is the cursor for the following page, or null at the end.
   */
  list(agentId: string, options: { limit?: number; after?: string } = {}): { pages: BrainPageSummary[]; next: string | null } {
    const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
    const rows = this.stmts.list.all(agentId, options.after ?? '', limit + 1) as BrainPageSummary[];
    const pages = rows.slice(0, limit);
    return { pages, next: rows.length > limit ? pages[pages.length - 1].slug : null };
  }

  /**
   * Ranked full-text search over the agent's pages (title words weigh 4× body words).
   * @returns at most `limit` (1..50) hits, best first; empty when `query` has no searchable word.
   */
  search(agentId: string, query: string, limit = 8): RecallHit[] {
    const match = toFtsMatch(query);
    if (match === null) return [];
    return this.stmts.search.all(match, agentId, Math.min(Math.max(limit, 1), 50)) as RecallHit[];
  }
}

function strip(row: PageRow): BrainPage {
  const { id: _id, ...page } = row;
  return page;
}
