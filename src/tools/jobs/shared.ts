/** Helpers shared by the `jobs` tools: the caller's own job, JSON outputs, quoting titles in labels. */
import type { JobService } from '../../jobs/job-service.js';
import type { JobRecord } from '../../jobs/types.js';
import { textResult } from '../../runtime/tool.js';

/** The job if it exists and belongs to `agentId`; else throws a model-facing error. */
export async function ownJob(service: JobService, id: string, agentId: string): Promise<JobRecord> {
  const job = await service.get(id);
  if (!job || job.agent_id !== agentId) throw new Error(`no background job with id ${JSON.stringify(id)}; list_background_jobs shows yours`);
  return job;
}

/** A result whose text is `value` as JSON (what the model reads) and whose details are the same value. */
export function jsonResult<T>(value: T) {
  return textResult(JSON.stringify(value), value);
}

/** `“title”`, shortened to 60 characters for labels. */
export function quoted(title: string): string {
  const chars = [...title];
  return `“${chars.length > 60 ? `${chars.slice(0, 59).join('')}…` : title}”`;
}

/** Told to the model when a job it starts will not notify (job notices chain at most so deep: src/jobs/notice-depth.ts). */
export const NOTIFY_LIMITED_NOTE =
  'This turn was started by background job notices, and jobs started from such a chain do not notify: nobody is told when this one ends. ' +
  'Tell the user to check it (show_background_job_details, GET /v1/jobs/{id}) instead of waiting for a notice.';

/** A non-blank string schema helper's message. */
export const NON_BLANK = /\S/;
