/** `workflow_get` {id, result_offset?}: status counts, each task's status, results paged (~8 KB per call). */
import { z } from 'zod';
import type { TurnContext } from '../../assembly/context.js';
import { defineWorkerTool, textResult } from '../../runtime/tool.js';
import type { WorkflowRecord, WorkflowService } from '../../workflows/types.js';
import { formatWorkflow } from './format.js';

const schema = z.object({
  id: z.string().min(1).max(100).describe('Workflow id from workflow_start or workflow_list'),
  result_offset: z.number().int().min(0).optional().describe('Show results from this task index on (default 0)'),
});

/** The workflow if it exists and belongs to the turn's agent; else throws a model-facing error. */
export async function ownWorkflow(service: WorkflowService, id: string, agentId: string): Promise<WorkflowRecord> {
  const wf = await service.get(id);
  if (!wf || wf.agent_id !== agentId) throw new Error(`no workflow with id ${JSON.stringify(id)}; workflow_list shows yours`);
  return wf;
}

/** `workflow_get`: one call's output stays under OUTPUT_BUDGET_BYTES (format.ts). */
export function createWorkflowGetTool(service: WorkflowService) {
  return defineWorkerTool<typeof schema, ReturnType<typeof textResult>, TurnContext>({
    name: 'workflow_get',
    description:
      "Show a workflow's status, each task's status and the results of finished tasks. Long results are paged: " +
      'call again with the result_offset the output names.',
    schema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: (p) => `Checking workflow ${p.id}`,
    async execute(params, ctx) {
      const wf = await ownWorkflow(service, params.id, ctx.turn.agentId);
      const { text, nextResultOffset } = formatWorkflow(wf, params.result_offset ?? 0);
      return textResult(text, { workflow_id: wf.id, status: wf.status, next_result_offset: nextResultOffset });
    },
  });
}
