/**
 * `get_page` {reference, offset?}: one brain page as Markdown (a `recall` result's reference is the
 * page slug). Long pages come in chunks of {@link PAGE_CHUNK_CHARS} characters. Read-only.
 */
import { z } from 'zod';
import type { TurnContext } from '../../assembly/context.js';
import type { BrainStore } from '../../brain/brain-store.js';
import { defineWorkerTool, textResult } from '../../runtime/tool.js';

export const PAGE_CHUNK_CHARS = 16_000;

const schema = z.object({
  reference: z.string().min(1).max(200).describe('Page reference from recall (the page slug)'),
  offset: z.number().int().min(0).optional().describe('Character offset to continue a long page from (default 0)'),
});

/** The `get_page` tool over `store`, scoped to the calling turn's agent; unknown reference → throws (an `Error:` output). */
export function createGetPageTool(store: BrainStore) {
  return defineWorkerTool<typeof schema, ReturnType<typeof textResult>, TurnContext>({
    name: 'get_page',
    description: "Read one page of the agent's brain by its reference (from recall).",
    schema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: (p) => `Reading brain page ${p.reference}`,
    async execute(params, ctx) {
      const slug = params.reference.replace(/^brain:/, '').trim();
      const page = await store.get(ctx.turn.agentId, slug);
      if (!page) throw new Error(`no brain page with reference "${params.reference}"; use recall to find references`);
      const offset = params.offset ?? 0;
      const chunk = page.markdown.slice(offset, offset + PAGE_CHUNK_CHARS);
      const end = offset + chunk.length;
      const more = end < page.markdown.length
        ? `\n\n[characters ${offset}-${end} of ${page.markdown.length}; call get_page with offset ${end} for more]`
        : '';
      return textResult(`# ${page.title}\n(reference: ${page.slug}, updated ${page.updated_at})\n\n${chunk}${more}`, {
        reference: page.slug,
        title: page.title,
        offset,
        length: page.markdown.length,
      });
    },
  });
}
