/**
 * The `jobs` family (main turns only): create_background_job, list_background_jobs,
 * show_background_job_details, send_message_to_background_job, respawn_background_job,
 * stop_background_job. Never in a background job's own turns (one level deep), workflow task
 * turns or scheduled turns; the reason is reported in `turn.started.unavailable`.
 */
import { FAMILY_TOOL_NAMES } from '../../assembly/tool-names.js';
import type { FamilyCreator } from '../../assembly/family.js';
import type { JobService } from '../../jobs/job-service.js';
import { createCreateJobTool } from './create.js';
import { createListJobsTool } from './list.js';
import { createRespawnJobTool } from './respawn.js';
import { createSendJobMessageTool } from './send.js';
import { createShowJobTool } from './show.js';
import { createStopJobTool } from './stop.js';

/** The family's tools, in the order offered (the one list: src/assembly/tool-names.ts). */
export const JOB_TOOL_NAMES = FAMILY_TOOL_NAMES.jobs;

export const jobsFamily: FamilyCreator = {
  family: 'jobs',
  create(ctx) {
    if (ctx.kind === 'background_job') return { unavailable: 'background jobs cannot start or manage background jobs (one level deep)' };
    if (ctx.kind === 'workflow_task') return { unavailable: 'workflow task turns cannot start background jobs' };
    if (ctx.kind !== 'main') return { unavailable: 'only main turns manage background jobs' };
    if (!ctx.families.includes('jobs')) return { unavailable: 'not enabled for this turn' };
    const service = ctx.services.jobs as JobService | undefined;
    if (!service) return { unavailable: 'background job service not configured on this server' };
    return {
      tools: [
        createCreateJobTool(service),
        createListJobsTool(service),
        createShowJobTool(service),
        createSendJobMessageTool(service),
        createRespawnJobTool(service),
        createStopJobTool(service),
      ],
    };
  },
};
