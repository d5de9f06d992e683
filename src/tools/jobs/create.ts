/**
 * `create_background_job` {title, task, model?, notify?} → `{job_id, status, notify, note?}`: hand
 * long work to a background job that keeps running after this turn has answered. From a turn
 * started by job notices too deep (src/jobs/notice-depth.ts) the job does not notify, and `note` says so. Idempotent per source call: a
 * retried round (same turn, same call id) returns the job the first attempt made. The title is
 * one line of plain text with a visible character (src/name-check.ts): another is an
 * invalid-arguments error naming the character.
 */
import { z } from 'zod';
import { ModelNameSchema } from '../../model/model-name.js';
import type { TurnContext } from '../../assembly/context.js';
import type { JobService } from '../../jobs/job-service.js';
import { defineWorkerTool } from '../../runtime/tool.js';
import { nameCheck } from '../../name-check.js';
import { jsonResult, NON_BLANK, NOTIFY_LIMITED_NOTE, quoted } from './shared.js';

const schema = z.strictObject({
  title: z.string().min(1).max(200).check(nameCheck('title')).regex(NON_BLANK, 'must not be blank').describe('Short title for people (not sent to the job)'),
  task: z.string().min(1).regex(NON_BLANK, 'must not be blank').describe('Everything the job needs to know, sent verbatim as its first message: it sees nothing of this conversation'),
  model: ModelNameSchema.optional().describe("Model of the job (default: this turn's)"),
  notify: z.boolean().optional().describe('Tell this conversation when the job succeeds, fails or asks a question (default true)'),
});

export function createCreateJobTool(service: JobService) {
  return defineWorkerTool<typeof schema, ReturnType<typeof jsonResult>, TurnContext>({
    name: 'create_background_job',
    description:
      'Start a background job: long work (a refactor, a data crunch, a research sweep) that runs on its own in this agent\'s computer, ' +
      'with computer, web and todo tools, and keeps running after this turn has answered. Returns its job_id at once. ' +
      'You are told when it succeeds, fails or asks a question; check on it with show_background_job_details.',
    schema,
    strict: true,
    executionMode: 'sequential',
    describeActivity: (p) => `Starting background job ${quoted(p.title)}`,
    describeCompletedActivity: (p) => `Started background job ${quoted(p.title)}`,
    async execute(p, ctx) {
      const { job, notify_limited } = await service.create({
        agent_id: ctx.turn.agentId,
        title: p.title,
        task: p.task,
        model: p.model ?? ctx.turn.model,
        notify: p.notify ?? true,
        source: { turn_id: ctx.turn.turnId, call_id: ctx.callId },
      });
      return jsonResult({ job_id: job.id, status: job.status, notify: job.notify, ...(notify_limited ? { note: NOTIFY_LIMITED_NOTE } : {}) });
    },
  });
}
