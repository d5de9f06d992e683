/**
 * `schedule_list` and `schedule_get`: read-only views of this agent's schedules (the only schedule
 * tools a turn started by a schedule gets).
 */
import { z } from 'zod';
import type { TurnContext } from '../../assembly/context.js';
import type { Clock } from '../../schedules/clock.js';
import type { Schedule, ScheduleRun, ScheduleService } from '../../schedules/types.js';
import { defineWorkerTool, textResult, type AgentToolResult } from '../../runtime/tool.js';
import type { ScheduleNames } from './names.js';
import { quoted } from './labels.js';
import { runLine, scheduleLine, scheduleText } from './render.js';
import { count } from '../count.js';

/** How many runs schedule_get shows. */
const RECENT_RUNS = 10;

/** A schedule of this turn's agent, or a throw the model can act on. */
export async function ownSchedule(ctx: TurnContext, service: ScheduleService, id: string): Promise<Schedule> {
  const s = await service.get(id);
  if (!s || s.agent_id !== ctx.agentId) {
    throw new Error(`no schedule with id ${JSON.stringify(id)} for agent ${ctx.agentId}; call schedule_list to see the ids`);
  }
  return s;
}

/** Extra sentence for read tools in a scheduled turn. */
function scheduledNote(ctx: TurnContext): string {
  return ctx.origin.type === 'schedule'
    ? ` This turn was started by schedule ${ctx.origin.schedule_id}; scheduled turns may read schedules but not create, change or delete them.`
    : '';
}

const listParams = z
  .object({ status: z.enum(['active', 'paused', 'completed']).optional().describe('only schedules in this status') })
  .strict();

export function createScheduleListTool(ctx: TurnContext, service: ScheduleService, clock: Clock, names: ScheduleNames) {
  return defineWorkerTool<typeof listParams, AgentToolResult<{ schedules: Schedule[] }>>({
    name: 'schedule_list',
    description: `List this agent's schedules (newest first) with their status and next run.${scheduledNote(ctx)}`,
    schema: listParams,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: (p) => (p.status ? `Listing ${p.status} schedules` : 'Listing schedules'),
    describeCompletedActivity: (p, r) => {
      const n = r.details?.schedules.length ?? 0;
      return `Listed ${count(n, `${p.status ? `${p.status} ` : ''}schedule`)}`;
    },
    async execute(p) {
      const schedules = (await service.list({ agent_id: ctx.agentId, status: p.status, limit: 200 })).data;
      for (const s of schedules) names.remember(s);
      const now = clock.now();
      const text = schedules.length
        ? `${schedules.length} schedule(s):\n${schedules.map((s) => scheduleLine(s, now)).join('\n')}`
        : `No ${p.status ? `${p.status} ` : ''}schedules for agent ${ctx.agentId}.`;
      return textResult(text, { schedules });
    },
  });
}

const getParams = z.object({ id: z.string().min(1).describe('schedule id from schedule_list') }).strict();

export function createScheduleGetTool(ctx: TurnContext, service: ScheduleService, clock: Clock, names: ScheduleNames) {
  return defineWorkerTool<typeof getParams, AgentToolResult<{ schedule: Schedule; runs: ScheduleRun[] }>>({
    name: 'schedule_get',
    description: `Show one of this agent's schedules in full, with its ${RECENT_RUNS} most recent runs (each with the turn it started).${scheduledNote(ctx)}`,
    schema: getParams,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: (p) => {
      const name = names.get(p.id);
      return name !== undefined ? `Reading schedule ${quoted(name)}` : `Reading schedule ${p.id}`;
    },
    describeCompletedActivity: (_p, r) => {
      if (!r.details) return null;
      const n = r.details.runs.length;
      return `Read schedule ${quoted(r.details.schedule.name)} (${count(n, 'recent run')})`;
    },
    async execute(p) {
      const schedule = await ownSchedule(ctx, service, p.id);
      names.remember(schedule);
      const runs = (await service.listRuns(p.id, { limit: RECENT_RUNS })).data;
      const text = [
        scheduleText(schedule, clock.now()),
        runs.length ? `recent runs (newest first):\n${runs.map(runLine).join('\n')}` : 'recent runs: none yet',
      ].join('\n');
      return textResult(text, { schedule, runs });
    },
  });
}
