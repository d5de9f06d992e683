/** `stop_background_job` {job_id} → `{job_id, status}`: stop a job (running tools are aborted); a finished job is left as it is. */
import { z } from 'zod';
import type { TurnContext } from '../../assembly/context.js';
import type { JobService } from '../../jobs/job-service.js';
import { defineWorkerTool } from '../../runtime/tool.js';
import { jsonResult, ownJob } from './shared.js';

const schema = z.strictObject({ job_id: z.string().min(1).max(100).describe('The job id') });

export function createStopJobTool(service: JobService) {
  return defineWorkerTool<typeof schema, ReturnType<typeof jsonResult>, TurnContext>({
    name: 'stop_background_job',
    description: 'Stop a background job. Its running commands are aborted; a finished job stays as it is. Nobody is notified.',
    schema,
    strict: true,
    executionMode: 'sequential',
    describeActivity: () => 'Stopping a background job',
    describeCompletedActivity: () => 'Stopped a background job',
    async execute(p, ctx) {
      await ownJob(service, p.job_id, ctx.turn.agentId);
      const job = (await service.stop(p.job_id))!;
      return jsonResult({ job_id: job.id, status: job.status });
    },
  });
}
