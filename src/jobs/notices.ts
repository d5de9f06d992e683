/**
 * What the owner of a job is told, without polling, when the job succeeds, fails or starts
 * waiting (never when stopped): a developer message stating the outcome and what to do next.
 * Delivery (./notice-delivery.ts) puts it into the creating conversation.
 */
import type { JobRecord } from './types.js';

/** Characters of a result or question quoted in a notice (the rest: show_background_job_details). */
export const NOTICE_QUOTE_CHARS = 2000;

function quote(text: string): string {
  const chars = [...text];
  if (chars.length <= NOTICE_QUOTE_CHARS) return text;
  return `${chars.slice(0, NOTICE_QUOTE_CHARS).join('')}… [${chars.length - NOTICE_QUOTE_CHARS} more characters]`;
}

/** The notice of `job`'s new status, or null when that status tells nobody. */
export function noticeFor(job: Pick<JobRecord, 'id' | 'title' | 'status' | 'output_text' | 'question' | 'error'>): string | null {
  const name = `Background job ${job.id} (${JSON.stringify(job.title)})`;
  if (job.status === 'succeeded') {
    return `${name} succeeded. Its result:\n\n${quote(job.output_text ?? '')}\n\n` +
      `Read the whole result with show_background_job_details {"job_id": "${job.id}", "result_offset": 0}. Tell the user what matters.`;
  }
  if (job.status === 'failed') {
    const e = job.error;
    return `${name} failed: ${e ? `${e.code}: ${e.summary}` : 'unknown error'}${e?.retryable ? ' (may work when tried again)' : ''}. ` +
      `Continue it with respawn_background_job {"source_job_id": "${job.id}", "message": "…"} or tell the user.`;
  }
  if (job.status === 'waiting_on_user') {
    return `${name} is waiting for an answer to its question:\n\n${quote(job.question ?? '')}\n\n` +
      `Answer it with send_message_to_background_job {"job_id": "${job.id}", "message": "…"} (ask the user first if only they know).`;
  }
  return null;
}
