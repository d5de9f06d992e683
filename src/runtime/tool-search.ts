/**
 * Client-side tool search (`TOOL_SEARCH_MODE=client`, the default): deferred tools
 * (`deferLoading: true`) stay out of the request; the model gets a `tool_search` function that
 * ranks the deferred tools for a query by name, namespace and description and loads the best
 * matches into the following requests of the same turn.
 *
 * The same ranking answers a Responses API `tool_search_call` item with `execution: "client"`
 * (as captured in openai-client-tool-search.1.chunks.txt) with a `tool_search_output` item.
 */
import { z } from 'zod';
import type { CompiledTool } from './compiled-tool.js';
import type { JsonObject } from './json.js';
import { defineWorkerTool, textResult, type AnyWorkerAgentTool } from './tool.js';

export const TOOL_SEARCH_NAME = 'tool_search';
/** Tools loaded per search at most. */
export const TOOL_SEARCH_DEFAULT_RESULTS = 5;

export const TOOL_SEARCH_DESCRIPTION =
  'Search for more tools by what you need to do. Matching tools are loaded and can be called from your next step. Use it when none of your current tools fits the task.';

/** The provider `parameters` of the tool_search function (strict-compatible). */
export const TOOL_SEARCH_PARAMETERS: JsonObject = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'What you want to do, in a few words (e.g. "send an email").' },
  },
  required: ['query'],
  additionalProperties: false,
};

function tokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 1);
}

/**
 * Rank deferred tools for `query`: each query word scores 3 when it is a word of the tool name,
 * 2 of the namespace, 1 of the description; a query containing the exact name scores 10 more.
 * Ties keep identity order. Returns tools with a positive score, best first.
 */
export function rankDeferredTools(query: string, tools: CompiledTool[], limit = TOOL_SEARCH_DEFAULT_RESULTS): CompiledTool[] {
  const q = tokens(query);
  const lowered = query.toLowerCase();
  const scored = tools.map((c) => {
    const name = new Set(tokens(c.tool.name));
    const ns = new Set(tokens(c.tool.namespace ?? ''));
    const desc = new Set(tokens(`${c.tool.description} ${c.tool.namespaceDescription ?? ''}`));
    let score = 0;
    for (const t of q) {
      if (name.has(t)) score += 3;
      if (ns.has(t)) score += 2;
      if (desc.has(t)) score += 1;
    }
    if (lowered.includes(c.tool.name.toLowerCase()) || lowered.includes(c.identity.toLowerCase())) score += 10;
    return { c, score };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || (a.c.identity < b.c.identity ? -1 : a.c.identity > b.c.identity ? 1 : 0))
    .slice(0, limit)
    .map((s) => s.c);
}

/** Load matches for `query` into `loaded` (identities) and describe the result for the model. */
export function searchAndLoad(query: string, deferred: CompiledTool[], loaded: Set<string>): { text: string; matches: CompiledTool[] } {
  const matches = rankDeferredTools(query, deferred);
  for (const m of matches) loaded.add(m.identity);
  if (matches.length === 0) {
    const names = deferred.slice(0, 20).map((c) => c.identity).join(', ');
    return { matches, text: `No tool matched "${query}". Searchable tools: ${names}${deferred.length > 20 ? ', …' : ''}.` };
  }
  const lines = matches.map((m) => `- ${m.identity}: ${m.tool.description}`);
  return { matches, text: `Loaded ${matches.length} tool(s); you can call them from your next step:\n${lines.join('\n')}` };
}

/**
 * The executable `tool_search` function for one turn. `loaded` is the turn's set of loaded
 * deferred-tool identities; the loop rebuilds the provider tools from it before each request.
 */
export function createToolSearchTool(deferred: CompiledTool[], loaded: Set<string>): AnyWorkerAgentTool {
  return defineWorkerTool({
    name: TOOL_SEARCH_NAME,
    description: TOOL_SEARCH_DESCRIPTION,
    schema: z.object({ query: z.string().min(1) }),
    jsonSchema: TOOL_SEARCH_PARAMETERS,
    executionMode: 'sequential',
    isReadOnly: true,
    describeActivity: (p) => `Searching tools for "${p.query}"`,
    execute: async (p) => {
      const { text, matches } = searchAndLoad(p.query, deferred, loaded);
      return textResult(text, { query: p.query, loaded: matches.map((m) => m.identity) });
    },
  });
}
