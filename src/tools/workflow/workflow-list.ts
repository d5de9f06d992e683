/** `workflow_list` {status?: live|done, page?}: the agent's workflows, newest first, 20 per page. */
import { z } from 'zod';
import type { TurnContext } from '../../assembly/context.js';
import { defineWorkerTool, textResult } from '../../runtime/tool.js';
import type { WorkflowService } from '../../workflows/types.js';
import { headerLine } from './format.js';

export const LIST_PAGE_SIZE = 20;

const schema = z.object({
  status: z.enum(['live', 'done']).optional().describe('live: still running; done: completed, failed or cancelled; default both'),
  page: z.number().int().min(1).max(1000).optional().describe('Page number, 1-based (default 1)'),
});

/** `workflow_list`: the calling turn's agent's workflows, {@link LIST_PAGE_SIZE} per page. */
export function createWorkflowListTool(service: WorkflowService) {
  return defineWorkerTool<typeof schema, ReturnType<typeof textResult>, TurnContext>({
    name: 'workflow_list',
    description: "List this agent's workflows, newest first (20 per page).",
    schema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: () => 'Listing workflows',
    async execute(params, ctx) {
      const page = params.page ?? 1;
      let cursor: string | undefined;
      let result = await service.list({ agent_id: ctx.turn.agentId, status: params.status, limit: LIST_PAGE_SIZE });
      for (let p = 1; p < page; p++) {
        cursor = result.next_cursor ?? undefined;
        if (!cursor) return textResult(`No workflows on page ${page}.`, { workflows: [] });
        result = await service.list({ agent_id: ctx.turn.agentId, status: params.status, limit: LIST_PAGE_SIZE, cursor });
      }
      if (result.workflows.length === 0) return textResult(page === 1 ? 'No workflows.' : `No workflows on page ${page}.`, { workflows: [] });
      const lines = result.workflows.map((wf) => `- ${headerLine(wf)} (created ${wf.created_at})`);
      const more = result.next_cursor ? `\nMore: call workflow_list with page ${page + 1}.` : '';
      return textResult(`${lines.join('\n')}${more}`, { workflows: result.workflows.map((w) => ({ id: w.id, status: w.status })) });
    },
  });
}
