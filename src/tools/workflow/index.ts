/**
 * The `workflow` family (main and scheduled turns only): workflow_start, workflow_get,
 * workflow_list, workflow_cancel. Workflow task turns never get it (no nested workflows).
 */
import type { FamilyCreator } from '../../assembly/family.js';
import { createWorkflowCancelTool } from './workflow-cancel.js';
import { createWorkflowGetTool } from './workflow-get.js';
import { createWorkflowListTool } from './workflow-list.js';
import { createWorkflowStartTool } from './workflow-start.js';

export const workflowFamily: FamilyCreator = {
  family: 'workflow',
  create(ctx) {
    if (ctx.kind === 'workflow_task') return { unavailable: 'workflow task turns cannot start workflows' };
    if (!ctx.families.includes('workflow')) return { unavailable: 'not enabled for this turn' };
    const service = ctx.services.workflows;
    if (!service) return { unavailable: 'workflow service not configured on this server' };
    return {
      tools: [
        createWorkflowStartTool(service),
        createWorkflowGetTool(service),
        createWorkflowListTool(service),
        createWorkflowCancelTool(service),
      ],
    };
  },
};
