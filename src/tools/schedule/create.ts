/**
 * `schedule_create`: save a turn request (input, instructions) plus `when`; the schedule inherits
 * the calling turn's agent id, tool families, brain and `approvals`. Idempotent per turn and arguments: a retried
 * identical call in the same turn returns the schedule the first call made.
 */
import { z } from 'zod';
import type { TurnContext } from '../../assembly/context.js';
import type { Clock } from '../../schedules/clock.js';
import { ScheduleNameSchema, WhenShapeSchema } from '../../schedules/schemas.js';
import type { Schedule, ScheduleService } from '../../schedules/types.js';
import { defineWorkerTool, textResult, type AgentToolResult } from '../../runtime/tool.js';
import { requestHash } from '../../turns/turn-input.js';
import { describeWhen, quoted, scheduledLabel } from './labels.js';
import type { ScheduleNames } from './names.js';
import { scheduleText } from './render.js';

const params = z
  .object({
    name: ScheduleNameSchema.describe('short name, e.g. "daily report"'),
    when: WhenShapeSchema,
    input: z.string().min(1).describe('the user message the scheduled turn starts with'),
    instructions: z.string().optional().describe('system instructions for the scheduled turn'),
  })
  .strict();

export type ScheduleCreateResult = AgentToolResult<{ schedule: Schedule; created: boolean }>;

export function createScheduleCreateTool(ctx: TurnContext, service: ScheduleService, clock: Clock, names: ScheduleNames) {
  return defineWorkerTool<typeof params, ScheduleCreateResult>({
    name: 'schedule_create',
    description: [
      'Schedule a future turn for this agent: once, or on a recurring cron rhythm.',
      'When it fires, a new turn starts with `input` as its user message (and `instructions`, if given), using this turn\'s tool families',
      `(${ctx.requestedTools.join(', ') || 'none'}). A scheduled turn can read schedules but cannot create or change them.`,
      '`when` is exactly one of: {"at": ISO 8601 time with offset, e.g. "2030-01-15T09:00:00+01:00"} (once),',
      '{"after": {"value": 10, "unit": "minute"}} (once; units second|minute|hour|day|week),',
      '{"cron": "0 9 * * 1-5", "timezone": "Europe/Berlin"} (recurring; 5 fields minute hour day-of-month month day-of-week; an IANA zone name, not a UTC offset;',
      `slots at least ${ctx.config.SCHEDULE_MIN_INTERVAL_S} s apart).`,
      `An agent may have at most ${ctx.config.SCHEDULE_MAX_PER_AGENT} active or paused schedules. Returns the schedule id and its next run.`,
    ].join(' '),
    schema: params,
    executionMode: 'sequential',
    describeActivity: (p) => `Scheduling ${quoted(p.name)} ${describeWhen(p.when, clock.now())}`.trimEnd(),
    describeCompletedActivity: (_p, result) => (result.details ? scheduledLabel('Scheduled', result.details.schedule, clock.now()) : null),
    async execute(p) {
      const { schedule, created } = await service.create(
        {
          agent_id: ctx.agentId,
          name: p.name,
          when: p.when,
          input: p.input,
          instructions: p.instructions ?? null,
          tools: [...ctx.requestedTools],
          brain: ctx.brain,
          // A turn's approvals go with the turns it schedules (they cannot escape them that way).
          ...(ctx.approvals ? { approvals: ctx.approvals } : {}),
        },
        { created_by: { type: 'turn', turn_id: ctx.turnId }, idempotencyKey: `turn:${ctx.turnId}:${requestHash(p)}` },
      );
      names.remember(schedule);
      const head = created ? 'Created.' : 'An identical schedule_create call in this turn already created this schedule; nothing new was created.';
      return textResult(`${head}\n${scheduleText(schedule, clock.now())}`, { schedule, created });
    },
  });
}
