/**
 * `show_background_job_details` {job_id, result_offset?}. Without `result_offset`: title, status,
 * attempts, progress (model steps, tool calls, last activity label), usage, error `{code, summary,
 * retryable}`, the question when waiting for an answer, the calls a person must decide when waiting
 * for approvals (`waiting_for`, `pending_approvals`), and the last 3 activity groups. With `result_offset`
 * (succeeded jobs only): `{offset, output_text, next_offset}`, a segment of the final text of at
 * most 8,000 UTF-8 bytes; the segments concatenate to the exact text (src/jobs/result-pages.ts).
 */
import { z } from 'zod';
import type { TurnContext } from '../../assembly/context.js';
import type { JobService } from '../../jobs/job-service.js';
import { approvalText } from '../../jobs/reply.js';
import { resultPage } from '../../jobs/result-pages.js';
import { defineWorkerTool } from '../../runtime/tool.js';
import { jsonResult, ownJob } from './shared.js';

const schema = z.strictObject({
  job_id: z.string().min(1).max(100).describe('The job id'),
  result_offset: z.number().int().min(0).optional().describe('Read the result of a succeeded job from this UTF-8 byte offset (0, then each next_offset)'),
});

/** Characters of each activity group's text shown (the whole result: result_offset). */
const GROUP_TEXT_CHARS = 1000;

const clip = (s: string | null) => (s === null ? null : [...s].length > GROUP_TEXT_CHARS ? `${[...s].slice(0, GROUP_TEXT_CHARS).join('')}…` : s);

export function createShowJobTool(service: JobService) {
  return defineWorkerTool<typeof schema, ReturnType<typeof jsonResult>, TurnContext>({
    name: 'show_background_job_details',
    description:
      "Show a background job's status, progress, usage, error and its latest activity. For a succeeded job, read its result " +
      'in segments with result_offset (start at 0, continue with next_offset until it is null).',
    schema,
    strict: true,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: (p) => (p.result_offset !== undefined ? 'Reading a background job result' : 'Checking a background job'),
    async execute(p, ctx) {
      const job = await ownJob(service, p.job_id, ctx.turn.agentId);
      if (p.result_offset !== undefined) {
        if (job.status !== 'succeeded') throw new Error(`background job ${job.id} is ${job.status}; only a succeeded job has a result to read (call without result_offset for its details)`);
        return jsonResult(resultPage(job.output_text ?? '', p.result_offset));
      }
      const progress = await service.progress(job);
      return jsonResult({
        job_id: job.id,
        title: job.title,
        status: job.status,
        attempts: job.attempts,
        progress: { steps: progress.steps, tool_calls: progress.tool_calls, last_activity: progress.last_activity },
        usage: progress.usage,
        error: job.error,
        ...(job.status === 'waiting_on_user' ? { question: job.question } : {}),
        ...(job.status === 'waiting_on_approval'
          ? { waiting_for: approvalText(job.pending_approvals), pending_approvals: job.pending_approvals.map((a) => ({ call_id: a.call_id, name: a.name, label: a.label, expires_at: a.expires_at })) }
          : {}),
        ...(job.status === 'succeeded' ? { result_bytes: Buffer.byteLength(job.output_text ?? '', 'utf8') } : {}),
        recent_activity: progress.recent.map((g) => ({ tools: g.tools, text: clip(g.text) })),
      });
    },
  });
}
