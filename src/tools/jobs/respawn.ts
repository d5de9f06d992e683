/**
 * `respawn_background_job` {source_job_id, message} → `{job_id, status, respawned_from, notify, note?}`: a new
 * queued job that continues a finished job's transcript in the same home, with `message` as its
 * next user message. A job that has not finished, or was respawned already, is an error.
 * Idempotent per source call like create_background_job.
 */
import { z } from 'zod';
import type { TurnContext } from '../../assembly/context.js';
import type { JobService } from '../../jobs/job-service.js';
import { defineWorkerTool } from '../../runtime/tool.js';
import { jsonResult, NON_BLANK, NOTIFY_LIMITED_NOTE } from './shared.js';

const schema = z.strictObject({
  source_job_id: z.string().min(1).max(100).describe('A succeeded, failed or stopped job'),
  message: z.string().min(1).regex(NON_BLANK, 'must not be blank').describe('What the new job should do next, knowing everything the source job did'),
});

export function createRespawnJobTool(service: JobService) {
  return defineWorkerTool<typeof schema, ReturnType<typeof jsonResult>, TurnContext>({
    name: 'respawn_background_job',
    description: 'Continue a finished background job as a new job: same transcript, same files, with your message as its next instruction.',
    schema,
    strict: true,
    executionMode: 'sequential',
    describeActivity: () => 'Respawning a background job',
    describeCompletedActivity: () => 'Respawned a background job',
    async execute(p, ctx) {
      try {
        const { job, notify_limited } = await service.respawn(p.source_job_id, p.message, ctx.turn.agentId, { turn_id: ctx.turn.turnId, call_id: ctx.callId });
        return jsonResult({ job_id: job.id, status: job.status, respawned_from: job.respawned_from, notify: job.notify, ...(notify_limited ? { note: NOTIFY_LIMITED_NOTE } : {}) });
      } catch (err) {
        throw new Error((err as Error).message);
      }
    },
  });
}
