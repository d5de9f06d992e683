/**
 * The `web_search` tool {query (1..500 chars), limit? (1..20, default 5)}: asks the configured
 * provider (./search-providers.ts) and renders numbered title / URL / snippet entries. Provider
 * failures throw, so the model sees `Error: <provider> search failed: HTTP <status> …`.
 * Only created when a provider is configured; the family leaves it out otherwise.
 */
import { z } from 'zod';
import { defineWorkerTool, textResult, type AgentToolResult } from '../../runtime/tool.js';
import type { SearchHit, SearchProvider, SearchProviderName } from './search-providers.js';
import { count } from '../count.js';
import { keepHead } from '../../runtime/text-cut.js';

export interface WebSearchDetails {
  provider: SearchProviderName;
  query: string;
  results: SearchHit[];
}

const schema = z.object({
  query: z.string().min(1).max(500).describe('What to search the web for'),
  limit: z.number().int().min(1).max(20).optional().describe('How many results to return (1-20, default 5)'),
});

function quoted(query: string): string {
  const q = query.replace(/\s+/g, ' ').trim();
  return `“${q.length > 60 ? `${keepHead(q, 60)}…` : q}”`;
}

/** Render hits as the model reads them: "1. Title\n   URL\n   snippet". */
export function renderHits(query: string, hits: SearchHit[]): string {
  if (hits.length === 0) return `No results found for ${quoted(query)}.`;
  const lines = hits.map((h, i) => `${i + 1}. ${h.title}\n   ${h.url}${h.snippet ? `\n   ${h.snippet}` : ''}`);
  return `Search results for ${quoted(query)}:\n\n${lines.join('\n\n')}`;
}

/** Build web_search over `provider`. Parallel, read-only. */
export function createWebSearchTool(provider: SearchProvider, timeoutMs: number) {
  return defineWorkerTool({
    name: 'web_search',
    description:
      'Search the web and get numbered results (title, URL, snippet). Use web_fetch to read a result page.',
    schema,
    executionMode: 'parallel',
    isReadOnly: true,
    timeoutMs: timeoutMs + 5_000,
    describeActivity: (p) => `Searching the web for ${quoted(p.query)}`,
    describeFailedActivity: (p, f) => `${f.kind === 'cancelled' ? 'Stopped searching' : 'Could not search'} the web for ${quoted(p.query)}`,
    describeCompletedActivity: (p, result: AgentToolResult<WebSearchDetails>) => {
      const n = result.details?.results.length ?? 0;
      return `Found ${count(n, 'result')} for ${quoted(p.query)}`;
    },
    async execute(params, ctx): Promise<AgentToolResult<WebSearchDetails>> {
      const limit = params.limit ?? 5;
      const results = await provider.search(params.query, limit, ctx.signal);
      return textResult(renderHits(params.query, results), { provider: provider.name, query: params.query, results });
    },
  });
}
