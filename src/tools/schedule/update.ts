/**
 * `schedule_update` and `schedule_delete`: change or remove one of this agent's schedules.
 */
import { z } from 'zod';
import type { TurnContext } from '../../assembly/context.js';
import type { Clock } from '../../schedules/clock.js';
import { ScheduleNameSchema, WhenShapeSchema } from '../../schedules/schemas.js';
import type { Schedule, ScheduleService } from '../../schedules/types.js';
import { defineWorkerTool, textResult, type AgentToolResult } from '../../runtime/tool.js';
import { quoted, scheduledLabel } from './labels.js';
import type { ScheduleNames } from './names.js';
import { ownSchedule } from './read.js';
import { scheduleText } from './render.js';

const updateParams = z
  .object({
    id: z.string().min(1).describe('schedule id from schedule_list'),
    changes: z
      .object({
        name: ScheduleNameSchema.optional(),
        when: WhenShapeSchema.optional(),
        input: z.string().min(1).optional().describe('new user message for future runs'),
        instructions: z.string().optional().describe('new system instructions for future runs'),
        paused: z.boolean().optional().describe('true pauses, false resumes'),
      })
      .strict()
      .refine((c) => Object.values(c).some((v) => v !== undefined), 'changes must name at least one field'),
  })
  .strict();

function nameOf(names: ScheduleNames, id: string): string {
  const name = names.get(id);
  return name !== undefined ? quoted(name) : `schedule ${id}`;
}

export function createScheduleUpdateTool(ctx: TurnContext, service: ScheduleService, clock: Clock, names: ScheduleNames) {
  return defineWorkerTool<typeof updateParams, AgentToolResult<{ schedule: Schedule }>>({
    name: 'schedule_update',
    description:
      'Change one of this agent\'s schedules: name, when (same forms as schedule_create; a completed one-shot given a new when runs again), input, instructions, or paused (true pauses; false resumes — a resumed cron schedule continues at its next slot, missed slots are not run). Only the fields given change.',
    schema: updateParams,
    executionMode: 'sequential',
    describeActivity: (p) => {
      const verb = p.changes.paused === true ? 'Pausing' : p.changes.paused === false ? 'Resuming' : 'Updating';
      return `${verb} ${nameOf(names, p.id)}`;
    },
    describeCompletedActivity: (p, r) => {
      if (!r.details) return null;
      const verb = p.changes.paused === true ? 'Paused' : p.changes.paused === false ? 'Resumed' : 'Updated';
      return scheduledLabel(verb, r.details.schedule, clock.now());
    },
    async execute(p) {
      await ownSchedule(ctx, service, p.id);
      const schedule = await service.update(p.id, p.changes);
      names.remember(schedule);
      return textResult(`Updated.\n${scheduleText(schedule, clock.now())}`, { schedule });
    },
  });
}

const deleteParams = z.object({ id: z.string().min(1).describe('schedule id from schedule_list') }).strict();

export function createScheduleDeleteTool(ctx: TurnContext, service: ScheduleService, names: ScheduleNames) {
  return defineWorkerTool<typeof deleteParams, AgentToolResult<{ schedule: Schedule }>>({
    name: 'schedule_delete',
    description: 'Delete one of this agent\'s schedules and its run history; it never fires again. Turns it already started are kept.',
    schema: deleteParams,
    executionMode: 'sequential',
    isDestructive: true,
    describeActivity: (p) => `Deleting ${nameOf(names, p.id)}`,
    describeCompletedActivity: (_p, r) => (r.details ? `Deleted ${quoted(r.details.schedule.name)}` : null),
    async execute(p) {
      await ownSchedule(ctx, service, p.id);
      const schedule = await service.delete(p.id);
      return textResult(`Deleted schedule ${schedule.id} ${quoted(schedule.name)}; it will not run again.`, { schedule });
    },
  });
}
