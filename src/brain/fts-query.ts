/**
 * Free text → an SQLite FTS5 MATCH expression that cannot be a syntax error.
 *
 * FTS5 query syntax (https://sqlite.org/fts5.html §3) gives meaning to `"`, `*`, `:`, `^`, `(`, `)`,
 * `AND`/`OR`/`NOT`/`NEAR`; a model's query must never trip over them. We keep only word characters
 * (Unicode letters and digits, as the `unicode61` tokenizer does), quote each word as a string and
 * allow prefix matches (`"word"*`), joined with OR: pages matching more (and rarer) words rank
 * higher under bm25, and a page matching one word still shows up.
 */

/** At most this many words of a query are used. */
export const MAX_QUERY_TERMS = 16;

/** The words of `text` as FTS5 sees them (lower-cased, deduplicated, in order). */
export function queryTerms(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words)].slice(0, MAX_QUERY_TERMS);
}

/** The MATCH expression for `text`, or null when it has no searchable word. */
export function toFtsMatch(text: string): string | null {
  const terms = queryTerms(text);
  if (terms.length === 0) return null;
  return terms.map((t) => `"${t}"*`).join(' OR ');
}
