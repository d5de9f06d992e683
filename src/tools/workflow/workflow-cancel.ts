/** `workflow_cancel` {id}: abort running task turns and mark the rest cancelled. */
import { z } from 'zod';
import type { TurnContext } from '../../assembly/context.js';
import { defineWorkerTool, textResult } from '../../runtime/tool.js';
import type { WorkflowService } from '../../workflows/types.js';
import { headerLine } from './format.js';
import { ownWorkflow } from './workflow-get.js';

const schema = z.object({ id: z.string().min(1).max(100).describe('Workflow id') });

/** `workflow_cancel`: cancels a workflow of the calling turn's agent (a finished one is reported unchanged). */
export function createWorkflowCancelTool(service: WorkflowService) {
  return defineWorkerTool<typeof schema, ReturnType<typeof textResult>, TurnContext>({
    name: 'workflow_cancel',
    description: 'Cancel a running workflow: running tasks are aborted, queued ones never start. Results already submitted stay.',
    schema,
    executionMode: 'sequential',
    isDestructive: true,
    describeActivity: (p) => `Cancelling workflow ${p.id}`,
    async execute(params, ctx) {
      const before = await ownWorkflow(service, params.id, ctx.turn.agentId);
      if (before.status !== 'running') return textResult(`Workflow already ended. ${headerLine(before)}`, { workflow_id: before.id, status: before.status });
      const wf = (await service.cancel(before.id))!;
      return textResult(`Cancelled. ${headerLine(wf)}`, { workflow_id: wf.id, status: wf.status });
    },
  });
}
