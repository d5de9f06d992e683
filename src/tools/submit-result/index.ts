/**
 * The `submit_result` family: one tool, only in workflow task turns (it needs the turn's
 * {@link WorkflowTaskBinding}). See ./submit-result-tool.ts.
 */
import type { FamilyCreator } from '../../assembly/family.js';
import { createSubmitResultTool } from './submit-result-tool.js';

export const submitResultFamily: FamilyCreator = {
  family: 'submit_result',
  create(ctx) {
    if (ctx.kind !== 'workflow_task' || !ctx.workflowTask) {
      return { unavailable: 'submit_result exists only in workflow task turns' };
    }
    return { tools: [createSubmitResultTool(ctx.workflowTask)] };
  },
};
