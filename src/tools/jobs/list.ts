/**
 * `list_background_jobs` {status?: live|stop, page?: "page_…"} → `{jobs: [{job_id, title, status}],
 * next_page}`: this agent's jobs, newest first, {@link LIST_PAGE_SIZE} per page. `live` (default):
 * queued, running, waiting_on_user, waiting_on_approval; `stop`: succeeded, failed, stopped.
 *
 * A page reference is self-contained ({@link encodePageRef}): it carries the filter and the last
 * job id of the page before it (the store's cursor), nothing kept in memory, so it stays valid in
 * later turns and across restarts of the service. The listing is always of the calling turn's
 * agent, so a reference cannot reach another agent's jobs.
 */
import { z } from 'zod';
import type { TurnContext } from '../../assembly/context.js';
import type { JobService } from '../../jobs/job-service.js';
import { LIVE_JOB_STATUSES, TERMINAL_JOB_STATUSES } from '../../jobs/types.js';
import { defineWorkerTool } from '../../runtime/tool.js';
import { jsonResult } from './shared.js';

export const LIST_PAGE_SIZE = 32;

export type ListFilter = 'live' | 'stop';

const FILTERS: readonly ListFilter[] = ['live', 'stop'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * `page_` + base64url of 17 bytes: the filter (0 live, 1 stop) and the 16 bytes of the UUIDv7 job
 * id to continue below (23 characters after the prefix).
 */
export function encodePageRef(filter: ListFilter, cursor: string): string {
  if (!UUID.test(cursor)) throw new Error(`job cursor ${cursor} is not a UUID`);
  const bytes = Buffer.concat([Buffer.from([FILTERS.indexOf(filter)]), Buffer.from(cursor.replaceAll('-', ''), 'hex')]);
  return `page_${bytes.toString('base64url')}`;
}

/** The filter and cursor of a reference made by {@link encodePageRef}; undefined for anything else. */
export function decodePageRef(ref: string): { status: ListFilter; cursor: string } | undefined {
  const m = /^page_([A-Za-z0-9_-]{23})$/.exec(ref);
  if (!m) return undefined;
  const bytes = Buffer.from(m[1], 'base64url');
  if (bytes.length !== 17 || bytes[0] > 1 || bytes.toString('base64url') !== m[1]) return undefined;
  const hex = bytes.subarray(1).toString('hex');
  return { status: FILTERS[bytes[0]], cursor: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` };
}

const schema = z.strictObject({
  status: z.enum(['live', 'stop']).optional().describe("live (default): queued, running, waiting for an answer or for a person's approval; stop: succeeded, failed or stopped"),
  page: z.string().max(100).optional().describe('A next_page value from an earlier list_background_jobs call'),
});

export function createListJobsTool(service: JobService) {
  return defineWorkerTool<typeof schema, ReturnType<typeof jsonResult>, TurnContext>({
    name: 'list_background_jobs',
    description: `List this agent's background jobs, newest first (${LIST_PAGE_SIZE} per page): job_id, title, status.`,
    schema,
    strict: true,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: (p) => (p.status === 'stop' ? 'Listing finished background jobs' : 'Listing background jobs'),
    async execute(p, ctx) {
      let status: ListFilter = p.status ?? 'live';
      let cursor: string | undefined;
      if (p.page !== undefined) {
        const ref = decodePageRef(p.page);
        if (!ref) throw new Error(`unknown page ${JSON.stringify(p.page)}: use a next_page exactly as a list_background_jobs call returned it, or call it without page`);
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
      const nextPage = page.next_cursor ? encodePageRef(status, page.next_cursor) : null;
      return jsonResult({ jobs: page.jobs.map((j) => ({ job_id: j.id, title: j.title, status: j.status })), next_page: nextPage });
    },
  });
}
