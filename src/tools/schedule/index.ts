/**
 * The `schedule` family: schedule_create, schedule_list, schedule_get, schedule_update,
 * schedule_delete over `ctx.services.schedules`, scoped to the turn's agent.
 *
 * - main turns that asked for `schedule`: all five tools;
 * - scheduled turns (`kind === 'scheduled'`): only schedule_list and schedule_get — no recursive
 *   creation or changes — and `unavailable` says why, so `turn.started` shows the refusal;
 * - workflow task turns: unavailable.
 */
import type { TurnContext } from '../../assembly/context.js';
import type { FamilyCreator, FamilyResult } from '../../assembly/family.js';
import { systemClock, type Clock } from '../../schedules/clock.js';
import { createScheduleCreateTool } from './create.js';
import { ScheduleNames } from './names.js';
import { createScheduleGetTool, createScheduleListTool } from './read.js';
import { createScheduleDeleteTool, createScheduleUpdateTool } from './update.js';

/** Build the family creator; tests pass the clock the schedule service uses (for labels). */
export function createScheduleFamily(deps: { clock?: Clock } = {}): FamilyCreator {
  const clock = deps.clock ?? systemClock;
  return {
    family: 'schedule',
    async create(ctx: TurnContext): Promise<FamilyResult> {
      if (ctx.kind === 'workflow_task') return { unavailable: 'not available in workflow task turns' };
      if (!ctx.families.includes('schedule')) return { unavailable: 'not enabled for this turn' };
      const service = ctx.services.schedules;
      if (!service) return { unavailable: 'schedule service not configured on this server' };
      const names = await ScheduleNames.load(service, ctx.agentId);
      const read = [createScheduleListTool(ctx, service, clock, names), createScheduleGetTool(ctx, service, clock, names)];
      if (ctx.kind === 'scheduled') {
        const by = ctx.origin.type === 'schedule' ? `schedule ${ctx.origin.schedule_id}` : 'a schedule';
        return {
          tools: read,
          unavailable: `schedule_create, schedule_update and schedule_delete withheld: this turn was started by ${by}, and scheduled turns may only read schedules (no recursive creation or changes)`,
        };
      }
      return {
        tools: [
          createScheduleCreateTool(ctx, service, clock, names),
          ...read,
          createScheduleUpdateTool(ctx, service, clock, names),
          createScheduleDeleteTool(ctx, service, names),
        ],
      };
    },
  };
}

/** The production creator (system clock), registered in MAIN_TURN_FAMILIES. */
export const scheduleFamily: FamilyCreator = createScheduleFamily();
