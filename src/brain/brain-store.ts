/**
 * The brain store port: a per-agent store of Markdown pages with ranked full-text search. Used by
 * the REST routes (routes/brain.ts) to write pages and by the `recall`/`get_page` tools to read
 * them. Implementations: ./sqlite-brain-store.ts (SQLite FTS5, the default) and
 * src/store/postgres/pg-brain-store.ts (Postgres full-text search). Both pass the one contract
 * suite in test/brain/brain-store.test.ts.
 */
import { z } from 'zod';
import { DomainError } from '../errors.js';
import { namePatternProblem, type NamePattern } from '../name-pattern.js';
import { noVisibleCharProblem, unsafeCharProblem } from '../unsafe-chars.js';
import { codePointCount } from '../runtime/text-cut.js';

/** A page slug (its name within the agent, and the `reference` tools use): `[A-Za-z0-9][A-Za-z0-9._-]{0,127}`. */
export const SLUG_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** The longest page slug {@link SLUG_PATTERN} admits. */
export const SLUG_MAX_LENGTH = 128;
/** {@link SLUG_PATTERN} for refusals that show the slug sent and what is allowed (src/name-pattern.ts). */
export const SLUG_RULE: NamePattern = {
  pattern: SLUG_PATTERN,
  char: /[A-Za-z0-9._-]/,
  first: /[A-Za-z0-9]/,
  maxChars: SLUG_MAX_LENGTH,
  words: 'letters, digits, ".", "_" and "-", starting with a letter or digit',
};
/**
 * Most characters of a page title, counted in code points (an emoji is one), as the REST body
 * check (zod's `max`) counts them: a title over it is refused there first, `invalid_request`.
 */
export const MAX_TITLE_CHARS = 300;
/** Markdown size limit per page, bytes (UTF-8). */
export const MAX_PAGE_BYTES = 512 * 1024;

/**
 * Why `title` cannot be a page title for the characters in it, or undefined when it can: a title
 * is one line of plain text, so a control character (NUL, a line break, a tab, ESC, DEL, C1), a
 * line or paragraph separator (U+2028, U+2029), an invisible character (U+00AD, U+034F, U+115F, U+1160, U+17B4, U+17B5, U+180B–U+180F, U+200B, U+2060–U+2065, U+206A–U+206F, U+3164, U+FEFF, U+FFA0, U+FFF9–U+FFFB, U+13430–U+1343F, U+1BCA0–U+1BCA3, U+1D173–U+1D17A, U+E0000–U+E007F outside a subdivision flag, the variation selectors U+FE00–U+FE0F and U+E0100–U+E01EF not after a character they apply to: U+FE0E and U+FE0F apply to an emoji beyond ASCII, U+FE0F also to a digit, # or * in a keycap (followed by U+20E3); U+FE00–U+FE0D to a visible character beyond ASCII; U+E0100–U+E01EF to an ideograph) or
 * a bidirectional control (U+202E would show a title reversed in a list) is refused, never
 * stripped (src/unsafe-chars.ts; ZWNJ and ZWJ are text). The reason is a phrase after the field (`must not contain
 * U+0000 (a control character), found at character 3: no … are allowed; send the title as one
 * line of plain text without them`).
 */
export function titleCharsProblem(title: string): string | undefined {
  return unsafeCharProblem(title, 'send the title as one line of plain text without them');
}

/** What to send instead of a title with no visible character (after `…: `). */
const NO_VISIBLE_TITLE_SEND = 'send a short title for the page in words';

/**
 * {@link titleCharsProblem} as a zod check of a title string (`z.string().check(titleCharsCheck)`):
 * one issue `{code: 'custom', message}` at the field, so the REST 400 `invalid_request` has
 * details `[{path: 'title', code: 'custom', message}]`.
 */
export const titleCharsCheck: z.core.CheckFn<string> = (ctx) => {
  const problem = titleCharsProblem(ctx.value);
  if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
};

export interface BrainPage {
  agent_id: string;
  slug: string;
  title: string;
  markdown: string;
  /** ISO 8601. */
  created_at: string;
  updated_at: string;
}

/** A page without its body; `bytes` is the body's UTF-8 size. */
export type BrainPageSummary = Omit<BrainPage, 'markdown'> & { bytes: number };

export interface RecallHit {
  /** The page's slug: pass it to `get_page` as `reference`. */
  reference: string;
  title: string;
  /** Body text around the matches (matched words in `**bold**`); the title is separate. */
  snippet: string;
  /** Relevance, engine-specific scale: lower is better (SQLite: bm25, negative; Postgres: −ts_rank). */
  score: number;
}

/** One problem of a page, as in every 400's details: the field (`slug`, `title`, `markdown`), zod's issue code, what is wrong and what to send. */
export interface PageProblem {
  path: 'slug' | 'title' | 'markdown';
  code: 'invalid_format' | 'invalid_type' | 'too_small' | 'too_big';
  message: string;
}

/**
 * Bad page input: 400 `invalid_page`, message one `<path> <what is wrong and what to send>` per
 * problem (joined with `; `, as `invalid_request` does), details the problems
 * `[{path, code, message}]` (`message` without the path).
 */
export class BrainInputError extends DomainError {
  declare readonly details: PageProblem[];
  constructor(problems: PageProblem[]) {
    super('invalid_page', problems.map((p) => `${p.path} ${p.message}`).join('; '), 400, problems);
  }
}

/** Promise-returning so a networked database can implement it. Pages are scoped by agent id. */
export interface BrainStore {
  /**
   * Create or replace the page `slug` of `agentId` (atomic: concurrent puts of one new slug create it once).
   * @returns the stored page and whether it was newly created.
   * @throws BrainInputError for a bad slug, an empty/long title or one without a visible character, a title with control or bidi
   *   characters ({@link titleCharsProblem}) or an oversized body.
   */
  put(agentId: string, slug: string, input: { title: string; markdown: string }): Promise<{ page: BrainPage; created: boolean }>;
  /** The page, or undefined. */
  get(agentId: string, slug: string): Promise<BrainPage | undefined>;
  /** Delete the page; false when there was none. */
  delete(agentId: string, slug: string): Promise<boolean>;
  /**
   * Pages of `agentId` ordered by slug (byte order), `limit` (1..200, default 50) at a time after
   * the slug `after`. `next` is the cursor for the following page, or null at the end.
   */
  list(agentId: string, options?: { limit?: number; after?: string }): Promise<{ pages: BrainPageSummary[]; next: string | null }>;
  /**
   * Ranked full-text search over the agent's pages: any word of `query` matches (also as a prefix),
   * title words weigh 4× body words; query syntax characters are plain text, never an error.
   * @returns at most `limit` (1..50, default 8) hits, best first; empty when `query` has no searchable word.
   */
  search(agentId: string, query: string, limit?: number): Promise<RecallHit[]>;
}

/**
 * Check a page before it is stored (both engines): the slug matches {@link SLUG_PATTERN}, the title
 * is a string with a visible character ({@link noVisibleCharProblem}: not only whitespace, blank
 * letters such as U+3164, combining marks or format characters) of at most
 * {@link MAX_TITLE_CHARS} characters and without the characters {@link titleCharsProblem} refuses, the markdown
 * a string of at most {@link MAX_PAGE_BYTES} UTF-8 bytes.
 * @throws BrainInputError listing every problem, each saying what to send instead (e.g. `markdown
 *   must be at most 524288 bytes (UTF-8), got 614400: split the text into several pages`).
 */
export function validatePage(slug: string, input: { title: string; markdown: string }): void {
  const problems: PageProblem[] = [];
  const slugProblem = namePatternProblem(slug, SLUG_RULE);
  if (slugProblem !== undefined) problems.push({ path: 'slug', code: 'invalid_format', message: slugProblem });
  const titleChars = typeof input.title === 'string' ? titleCharsProblem(input.title) : undefined;
  if (typeof input.title !== 'string') problems.push({ path: 'title', code: 'invalid_type', message: 'must be a string: send a short title for the page' });
  // A title of only U+FEFF is refused for it, not as empty: trim() strips U+FEFF.
  else if (input.title.trim() === '' && titleChars === undefined) problems.push({ path: 'title', code: 'too_small', message: 'must not be empty or only whitespace: send a short title for the page' });
  else if (codePointCount(input.title) > MAX_TITLE_CHARS) {
    problems.push({ path: 'title', code: 'too_big', message: `must be at most ${MAX_TITLE_CHARS} characters long, got ${codePointCount(input.title)}: shorten it` });
  }
  if (titleChars) problems.push({ path: 'title', code: 'invalid_format', message: titleChars });
  else if (typeof input.title === 'string' && input.title.trim() !== '') {
    const invisible = noVisibleCharProblem(input.title, NO_VISIBLE_TITLE_SEND);
    if (invisible) problems.push({ path: 'title', code: 'too_small', message: invisible });
  }
  if (typeof input.markdown !== 'string') problems.push({ path: 'markdown', code: 'invalid_type', message: 'must be a string: send the page text as Markdown' });
  else {
    const bytes = Buffer.byteLength(input.markdown, 'utf8');
    if (bytes > MAX_PAGE_BYTES) problems.push({ path: 'markdown', code: 'too_big', message: `must be at most ${MAX_PAGE_BYTES} bytes (UTF-8), got ${bytes}: split the text into several pages` });
  }
  if (problems.length > 0) throw new BrainInputError(problems);
}

/** Clamp a list page size to 1..200 (default 50). */
export const listLimit = (limit: number | undefined) => Math.min(Math.max(limit ?? 50, 1), 200);
/** Clamp a search result count to 1..50 (default 8). */
export const searchLimit = (limit: number | undefined) => Math.min(Math.max(limit ?? 8, 1), 50);
