/**
 * `list_background_jobs` {status?: live|stop, page?: "page_N"} → `{jobs: [{job_id, title, status}],
 * next_page}`: this agent's jobs, newest first, {@link LIST_PAGE_SIZE} per page. `live` (default):
 * queued, running, waiting_on_user, waiting_on_approval; `stop`: succeeded, failed, stopped. Page references are valid
 * in the turn that received them only (an unknown one is an error).
 */
import { z } from 'zod';
import type { TurnContext } from '../../assembly/context.js';
import type { JobService } from '../../jobs/job-service.js';
import { LIVE_JOB_STATUSES, TERMINAL_JOB_STATUSES } from '../../jobs/types.js';
import { defineWorkerTool } from '../../runtime/tool.js';
import { jsonResult } from './shared.js';

export const LIST_PAGE_SIZE = 32;

const schema = z.strictObject({
  status: z.enum(['live', 'stop']).optional().describe('live (default): queued, running, waiting for an answer or for a person\'s approval; stop: succeeded, failed or stopped'),
  page: z.string().regex(/^page_\d+$/).optional().describe('A next_page value from an earlier list_background_jobs call of this turn'),
});

/** @param pages this turn's page references (`page_N` → cursor and filter), shared by its calls. */
export function createListJobsTool(service: JobService, pages: Map<string, { status: 'live' | 'stop'; cursor: string }>) {
  return defineWorkerTool<typeof schema, ReturnType<typeof jsonResult>, TurnContext>({
    name: 'list_background_jobs',
    description: `List this agent's background jobs, newest first (${LIST_PAGE_SIZE} per page): job_id, title, status.`,
    schema,
    strict: true,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: (p) => (p.status === 'stop' ? 'Listing finished background jobs' : 'Listing background jobs'),
    async execute(p, ctx) {
      let status = p.status ?? 'live';
      let cursor: string | undefined;
      if (p.page !== undefined) {
        const ref = pages.get(p.page);
        if (!ref) throw new Error(`unknown page ${JSON.stringify(p.page)}: use a next_page from a list_background_jobs call of this turn, or call it without page`);
        if (p.status !== undefined && p.status !== ref.status) throw new Error(`page ${p.page} lists ${ref.status} jobs; call without status or with status "${ref.status}"`);
        status = ref.status;
        cursor = ref.cursor;
      }
      const page = await service.list({
        agent_id: ctx.turn.agentId,
        statuses: status === 'live' ? LIVE_JOB_STATUSES : TERMINAL_JOB_STATUSES,
        limit: LIST_PAGE_SIZE,
        ...(cursor ? { cursor } : {}),
      });
      let nextPage: string | null = null;
      if (page.next_cursor) {
        nextPage = `page_${pages.size + 2}`;
        pages.set(nextPage, { status, cursor: page.next_cursor });
      }
      return jsonResult({ jobs: page.jobs.map((j) => ({ job_id: j.id, title: j.title, status: j.status })), next_page: nextPage });
    },
  });
}
