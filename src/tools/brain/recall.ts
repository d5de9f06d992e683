/**
 * `recall` {query, limit?}: ranked snippets from the agent's brain pages (SQLite FTS5, bm25), each
 * with the page reference `get_page` takes. Read-only.
 */
import { z } from 'zod';
import type { TurnContext } from '../../assembly/context.js';
import type { BrainStore } from '../../brain/brain-store.js';
import { defineWorkerTool, textResult } from '../../runtime/tool.js';
import { count } from '../count.js';

const schema = z.object({
  query: z.string().min(1).max(500).describe('Words to look for in the brain pages'),
  limit: z.number().int().min(1).max(20).optional().describe('How many results (default 5)'),
});

/** The `recall` tool over `store`, scoped to the calling turn's agent. */
export function createRecallTool(store: BrainStore) {
  return defineWorkerTool<typeof schema, ReturnType<typeof textResult>, TurnContext>({
    name: 'recall',
    description:
      "Search the agent's brain (its saved knowledge pages) and get ranked snippets. Each result names a page reference; read the full page with get_page.",
    schema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: (p) => `Recalling "${p.query}"`,
    describeCompletedActivity: (p, r) => `Recalled "${p.query}" (${count((r.details as { hits: unknown[] }).hits.length, 'result')})`,
    async execute(params, ctx) {
      const hits = await store.search(ctx.turn.agentId, params.query, params.limit ?? 5);
      if (hits.length === 0) {
        return textResult(`No brain pages match "${params.query}".`, { hits });
      }
      const lines = hits.map(
        (h, i) => `${i + 1}. ${h.title} (reference: ${h.reference})\n   ${h.snippet.replace(/\s*\n\s*/g, ' ')}`,
      );
      return textResult(`${hits.length} result${hits.length === 1 ? '' : 's'} for "${params.query}", best first:\n${lines.join('\n')}`, { hits });
    },
  });
}
