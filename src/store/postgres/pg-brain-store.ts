/**
 * The brain store on Postgres (table `brain_pages`, migration 3): full-text search over a stored
 * generated `tsvector` (title weight A, body weight D, `simple` configuration: no stemming, like
 * SQLite's unicode61) with a GIN index. A query's words become prefix terms joined with OR
 * (`word:* | …`, built from letters and digits only, so user text is never tsquery syntax);
 * ranking is `ts_rank` with weights {D 0.25, A 1.0} (title 4× body), reported as −rank so lower is
 * better on both engines; snippets come from `ts_headline` with `**` around matches.
 * https://www.postgresql.org/docs/current/textsearch-controls.html
 */
import { listLimit, searchLimit, validatePage, type BrainPage, type BrainPageSummary, type BrainStore, type RecallHit } from '../../brain/brain-store.js';
import { queryTerms } from '../../brain/fts-query.js';
import type { PgDatabase } from './pg-database.js';

const PAGE_COLUMNS = 'agent_id, slug, title, markdown, created_at, updated_at';

export class PgBrainStore implements BrainStore {
  constructor(private readonly db: PgDatabase) {}

  async put(agentId: string, slug: string, input: { title: string; markdown: string }): Promise<{ page: BrainPage; created: boolean }> {
    validatePage(slug, input);
    const now = new Date().toISOString();
    // xmax = 0 only for a freshly inserted row version: tells insert from update in one statement.
    const { rows } = await this.db.query<BrainPage & { created: boolean }>(
      `INSERT INTO brain_pages (agent_id, slug, title, markdown, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
       ON CONFLICT (agent_id, slug) DO UPDATE SET title = EXCLUDED.title, markdown = EXCLUDED.markdown, updated_at = EXCLUDED.updated_at
       RETURNING ${PAGE_COLUMNS}, (xmax = 0) AS created`,
      [agentId, slug, input.title, input.markdown, now],
    );
    const { created, ...page } = rows[0];
    return { page, created };
  }

  async get(agentId: string, slug: string): Promise<BrainPage | undefined> {
    const { rows } = await this.db.query<BrainPage>(`SELECT ${PAGE_COLUMNS} FROM brain_pages WHERE agent_id = $1 AND slug = $2`, [agentId, slug]);
    return rows[0];
  }

  async delete(agentId: string, slug: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM brain_pages WHERE agent_id = $1 AND slug = $2', [agentId, slug])).rowCount > 0;
  }

  async list(agentId: string, options: { limit?: number; after?: string } = {}): Promise<{ pages: BrainPageSummary[]; next: string | null }> {
    const limit = listLimit(options.limit);
    const { rows } = await this.db.query<BrainPageSummary>(
      `SELECT agent_id, slug, title, created_at, updated_at, octet_length(markdown) AS bytes
       FROM brain_pages WHERE agent_id = $1 AND slug COLLATE "C" > $2 ORDER BY slug COLLATE "C" LIMIT $3`,
      [agentId, options.after ?? '', limit + 1],
    );
    const pages = rows.slice(0, limit);
    return { pages, next: rows.length > limit ? pages[pages.length - 1].slug : null };
  }

  async search(agentId: string, query: string, limit?: number): Promise<RecallHit[]> {
    const terms = queryTerms(query);
    if (terms.length === 0) return [];
    const tsquery = terms.map((t) => `${t}:*`).join(' | ');
    const { rows } = await this.db.query<RecallHit>(
      `SELECT slug AS reference, title,
              ts_headline('simple', markdown, q, 'StartSel=**, StopSel=**, MaxWords=24, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "') AS snippet,
              -ts_rank('{0.25, 0.25, 0.25, 1.0}', search, q) AS score
       FROM brain_pages, to_tsquery('simple', $2) AS q
       WHERE agent_id = $1 AND search @@ q
       ORDER BY score, slug LIMIT $3`,
      [agentId, tsquery, searchLimit(limit)],
    );
    return rows.map((r) => ({ ...r, score: Number(r.score) }));
  }
}
