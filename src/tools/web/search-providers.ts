/**
 * Web search providers, each against its documented HTTP API:
 * - `brave`: Brave Search API, `GET {base}/res/v1/web/search?q=…&count=…` with header
 *   `X-Subscription-Token: <key>`; results in `web.results[]` as {title, url, description}
 *   (https://api-dashboard.search.brave.com/docs; default base https://api.search.brave.com, count ≤ 20).
 * - `tavily`: Tavily Search, `POST {base}/search` with `Authorization: Bearer <key>` and JSON body
 *   {query, max_results}; results in `results[]` as {title, url, content}
 *   (https://docs.tavily.com; default base https://api.tavily.com, max_results ≤ 20).
 * - `searxng`: a (self-hosted) SearXNG instance, `GET {base}/search?q=…&format=json` (the instance
 *   must enable the json format); results in `results[]` as {title, url, content}. No key (when
 *   WEB_SEARCH_API_KEY is set it is sent as `Authorization: Bearer`, for instances behind a proxy).
 *   SearXNG has no result-count parameter: the first `limit` results are kept.
 * WEB_SEARCH_URL replaces the default base (required for searxng); the documented path is appended.
 */
import { request } from 'undici';
import { WEB_SEARCH_NEEDS, type Config } from '../../config.js';
import { keepHead } from '../../runtime/text-cut.js';

export type SearchProviderName = NonNullable<Config['WEB_SEARCH_PROVIDER']>;

/** One search hit. */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

/** A configured provider. */
export interface SearchProvider {
  name: SearchProviderName;
  /** @throws SearchProviderError on HTTP errors, timeouts, bad bodies (message never holds the key). */
  search(query: string, limit: number, signal: AbortSignal): Promise<SearchHit[]>;
}

/** A provider failure; the message names the provider and the status, with any key redacted. */
export class SearchProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SearchProviderError';
  }
}

/** Settings a provider is built from (the WEB_SEARCH_* variables). */
export interface SearchSettings {
  provider?: SearchProviderName;
  apiKey?: string;
  baseUrl?: string;
  /** Request timeout, ms. */
  timeoutMs: number;
}

const DEFAULT_BASE: Record<SearchProviderName, string | undefined> = {
  brave: 'https://api.search.brave.com',
  tavily: 'https://api.tavily.com',
  searxng: undefined,
};

/**
 * Why `settings` give no provider (for the family's unavailable reason / logs), or null if they do.
 * Through loadConfig (src/config.ts) only "no search provider configured" can happen: a provider without
 * the key or URL it needs ({@link WEB_SEARCH_NEEDS}) is refused at start; the other reasons cover
 * settings built by hand.
 */
export function searchUnavailableReason(settings: SearchSettings): string | null {
  if (!settings.provider) return 'no search provider configured (WEB_SEARCH_PROVIDER)';
  const needs = WEB_SEARCH_NEEDS[settings.provider].variable;
  if ((needs === 'WEB_SEARCH_API_KEY' && !settings.apiKey) || (!settings.baseUrl && !DEFAULT_BASE[settings.provider])) return `WEB_SEARCH_PROVIDER=${settings.provider} needs ${needs}`;
  return null;
}

function endpoint(base: string, path: string): URL {
  return new URL(path, base.endsWith('/') ? base : `${base}/`);
}

function clean(text: unknown): string {
  return typeof text === 'string'
    ? text.replace(/<[^>]+>/g, '').replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e] ?? '').replace(/\s+/g, ' ').trim()
    : '';
}

function hits(list: unknown, snippetKey: string, limit: number): SearchHit[] {
  if (!Array.isArray(list)) return [];
  return list
    .filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null && typeof (r as { url?: unknown }).url === 'string')
    .slice(0, limit)
    .map((r) => ({ title: clean(r.title) || String(r.url), url: String(r.url), snippet: clean(r[snippetKey]) }));
}

/**
 * Build the configured provider, or null when none is configured (or its key / URL is missing):
 * then web_search is absent from the turn.
 */
export function createSearchProvider(settings: SearchSettings): SearchProvider | null {
  if (searchUnavailableReason(settings) !== null || !settings.provider) return null;
  const name = settings.provider;
  const base = settings.baseUrl ?? DEFAULT_BASE[name]!;
  const key = settings.apiKey;
  const redact = (text: string) => (key ? text.split(key).join('[redacted]') : text);

  async function call(url: URL, init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }, signal: AbortSignal): Promise<unknown> {
    const deadline = AbortSignal.timeout(settings.timeoutMs);
    let res;
    try {
      res = await request(url, { ...init, signal: AbortSignal.any([signal, deadline]), headersTimeout: settings.timeoutMs, bodyTimeout: settings.timeoutMs });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (deadline.aborted) throw new SearchProviderError(`${name} search timed out after ${settings.timeoutMs / 1000} s`);
      const e = err as { code?: string; message?: string };
      throw new SearchProviderError(redact(`${name} search request failed: ${e.code ?? ''} ${e.message ?? String(err)}`.replace(/\s+/g, ' ')));
    }
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode > 299) {
      const hint = res.statusCode === 401 || res.statusCode === 403 ? ' (check WEB_SEARCH_API_KEY)' : res.statusCode === 429 ? ' (rate limit or quota exceeded)' : '';
      const excerpt = keepHead(text.replace(/\s+/g, ' ').trim(), 200);
      throw new SearchProviderError(redact(`${name} search failed: HTTP ${res.statusCode}${hint}${excerpt ? ` — ${excerpt}` : ''}`));
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new SearchProviderError(`${name} search failed: HTTP ${res.statusCode} with a body that is not JSON`);
    }
  }

  const accept = { accept: 'application/json' };
  const searchers: Record<SearchProviderName, SearchProvider['search']> = {
    async brave(query, limit, signal) {
      const url = endpoint(base, 'res/v1/web/search');
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(Math.min(limit, 20)));
      const body = (await call(url, { method: 'GET', headers: { ...accept, 'x-subscription-token': key! } }, signal)) as { web?: { results?: unknown } };
      return hits(body?.web?.results, 'description', limit);
    },
    async tavily(query, limit, signal) {
      const url = endpoint(base, 'search');
      const payload = JSON.stringify({ query, max_results: Math.min(limit, 20) });
      const headers = { ...accept, 'content-type': 'application/json', authorization: `Bearer ${key}` };
      const body = (await call(url, { method: 'POST', headers, body: payload }, signal)) as { results?: unknown };
      return hits(body?.results, 'content', limit);
    },
    async searxng(query, limit, signal) {
      const url = endpoint(base, 'search');
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const headers: Record<string, string> = key ? { ...accept, authorization: `Bearer ${key}` } : { ...accept };
      const body = (await call(url, { method: 'GET', headers }, signal)) as { results?: unknown };
      return hits(body?.results, 'content', limit);
    },
  };
  return { name, search: searchers[name] };
}
