/**
 * Per-turn repeat-fetch cache for web_fetch: a URL fetched again within {@link FETCH_CACHE_TTL_MS}
 * in the same turn is answered from memory and marked as a repeat. One instance lives in the tool
 * closure the web family creates for a turn, so nothing is shared between turns. Failures are not
 * cached.
 */

/** 15 minutes. */
export const FETCH_CACHE_TTL_MS = 15 * 60 * 1000;

/** A successfully read page, as cached and rendered. */
export interface FetchedPage {
  /** URL as requested. */
  url: string;
  /** URL after redirects. */
  finalUrl: string;
  status: number;
  /** Media type without parameters, '' when absent. */
  contentType: string;
  title: string | null;
  /** Full readable text (Markdown, text or JSON). */
  text: string;
  /** True when the body was cut at WEB_FETCH_MAX_BYTES. */
  bodyCut: boolean;
  /** Path relative to the agent home where the full text was saved, once it has been. */
  savedPath?: string;
}

export class FetchCache {
  private readonly entries = new Map<string, { page: FetchedPage; at: number }>();

  constructor(
    private readonly ttlMs = FETCH_CACHE_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached page for `key` (a normalized URL) and its age in ms, or undefined. */
  get(key: string): { page: FetchedPage; ageMs: number } | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    const ageMs = this.now() - hit.at;
    if (ageMs > this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return { page: hit.page, ageMs };
  }

  set(key: string, page: FetchedPage): void {
    this.entries.set(key, { page, at: this.now() });
  }
}
