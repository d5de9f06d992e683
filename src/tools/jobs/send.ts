/**
 * `send_message_to_background_job` {job_id, message, wait_reply = true, wait_timeout_ms =
 * 30000 (10000..150000)}: queued → delivered when it starts; running → a steering message applied
 * between its rounds; waiting_on_approval → a steering message applied once a person decided the
 * pending calls (the call returns at once with `wait_outcome: "waiting_on_approval"`);
 * waiting_on_user → answers the question and resumes it; finished → an error.
 * With `wait_reply` the call waits for the job's next reply after the message was applied and
 * returns it with the recent activity (≤ 24 KiB, `reply_ready: true`); on timeout
 * `reply_ready: false, wait_outcome: "timed_out"` — the message stays delivered (do not resend).
 */
import { z } from 'zod';
import type { TurnContext } from '../../assembly/context.js';
import type { JobService } from '../../jobs/job-service.js';
import { defineWorkerTool } from '../../runtime/tool.js';
import { approvalText } from '../../jobs/reply.js';
import { jsonResult, ownJob } from './shared.js';

export const DEFAULT_WAIT_MS = 30_000;
export const MIN_WAIT_MS = 10_000;
export const MAX_WAIT_MS = 150_000;

const schema = z.strictObject({
  job_id: z.string().min(1).max(100).describe('The job id'),
  message: z.string().min(1).regex(/\S/, 'must not be blank').describe('The message for the job (an answer to its question, or new instructions)'),
  wait_reply: z.boolean().optional().describe('Wait for the job to reply (default true)'),
  wait_timeout_ms: z.number().int().min(MIN_WAIT_MS).max(MAX_WAIT_MS).optional().describe(`How long to wait for the reply, ms (default ${DEFAULT_WAIT_MS})`),
});

export function createSendJobMessageTool(service: JobService) {
  return defineWorkerTool<typeof schema, ReturnType<typeof jsonResult>, TurnContext>({
    name: 'send_message_to_background_job',
    description:
      'Send a message to a background job: it answers a question the job asked (and resumes it), steers a running job, or waits ' +
      'for a queued one to start. By default waits for the job\'s reply and returns it.',
    schema,
    strict: true,
    executionMode: 'sequential',
    timeoutMs: MAX_WAIT_MS + 15_000,
    describeActivity: () => 'Messaging a background job',
    describeCompletedActivity: (_p, r) => ((r.details as { reply_ready?: boolean } | undefined)?.reply_ready ? 'Background job replied' : 'Messaged a background job'),
    async execute(p, ctx) {
      await ownJob(service, p.job_id, ctx.turn.agentId);
      const sent = await service.send(p.job_id, p.message);
      if (!sent) throw new Error(`no background job with id ${JSON.stringify(p.job_id)}`);
      const base = { job_id: sent.job.id, delivery: sent.delivery };
      if (p.wait_reply === false) return jsonResult({ ...base, status: sent.job.status, reply_ready: false });
      if (sent.job.status === 'waiting_on_approval') {
        // Nothing will reply before a person decides: say so instead of waiting out the timeout.
        return jsonResult({
          ...base,
          status: sent.job.status,
          reply_ready: false,
          wait_outcome: 'waiting_on_approval',
          waiting_for: approvalText(sent.job.pending_approvals),
          note: 'The message was delivered and reaches the job once a person decides its pending approvals; do not resend it. You cannot decide them yourself: tell the user.',
        });
      }
      const reply = await service.waitForReply(sent.job.id, sent, p.wait_timeout_ms ?? DEFAULT_WAIT_MS, ctx.signal);
      const status = (await service.get(sent.job.id))?.status ?? sent.job.status;
      if (!reply) {
        return jsonResult({
          ...base,
          status,
          reply_ready: false,
          wait_outcome: 'timed_out',
          note: 'The message was delivered; do not resend it. Check later with show_background_job_details.',
        });
      }
      return jsonResult({ ...base, status, reply_ready: true, reply: { kind: reply.kind, text: reply.text }, activity: reply.activity });
    },
  });
}
