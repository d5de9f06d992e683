/**
 * The todo family: one `todo` tool (a per-turn plan) in main and scheduled turns whose families
 * include `todo`; never in workflow task turns.
 */
import type { TurnContext } from '../../assembly/context.js';
import type { FamilyCreator, FamilyResult } from '../../assembly/family.js';
import { createTodoTool } from './todo-tool.js';

export const todoFamily: FamilyCreator = {
  family: 'todo',
  create(ctx: TurnContext): FamilyResult {
    if (ctx.kind === 'workflow_task') return { unavailable: 'not allowed in workflow task turns' };
    if (!ctx.families.includes('todo')) return { unavailable: 'not enabled for this turn' };
    return { tools: [createTodoTool()] };
  },
};
