/** `workflow_start` {title, tasks, concurrency?}: start a workflow of isolated task turns. */
import { z } from 'zod';
import type { TurnContext } from '../../assembly/context.js';
import { defineWorkerTool, textResult } from '../../runtime/tool.js';
import { WorkflowInputError, type WorkflowService } from '../../workflows/types.js';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from '../../workflows/validate-input.js';
import { issueLine } from '../../zod-messages.js';
import { count } from '../count.js';

const schema = z.object({
  title: z.string().min(1).max(200).describe('Short title of the workflow'),
  tasks: z
    .array(
      z.object({
        label: z.string().min(1).max(200).describe('Short name of the task'),
        prompt: z.string().min(1).describe('Everything the task needs to know: it sees nothing of this conversation'),
        result_schema: z
          .record(z.string(), z.unknown())
          .describe(
            'JSON Schema of the task result. Each node has one type (object, array, string, number, integer, boolean); ' +
              'objects list every property in "required" and set "additionalProperties": false; allowed keywords: description, enum, ' +
              'items, minItems, maxItems, minLength, maxLength, pattern (RE2 syntax: no lookaround, no backreferences; at most 1000 characters), minimum, maximum, multipleOf. No anyOf, $ref, format or null.',
          ),
      }),
    )
    .min(1)
    .describe('The tasks; each runs as its own isolated turn with web tools and must submit a result matching its schema'),
  concurrency: z.number().int().min(1).max(MAX_CONCURRENCY).optional().describe(`Tasks running at once (default ${DEFAULT_CONCURRENCY})`),
});

/** `workflow_start` for the calling turn's agent; subset violations → throws listing each (an `Error:` output). */
export function createWorkflowStartTool(service: WorkflowService) {
  return defineWorkerTool<typeof schema, ReturnType<typeof textResult>, TurnContext>({
    name: 'workflow_start',
    description:
      'Start a workflow: several tasks run in parallel as isolated turns (web tools only), each ending with a structured result ' +
      'that matches its result_schema. Returns the workflow id at once; check progress and read results with workflow_get.',
    schema,
    executionMode: 'sequential',
    describeActivity: (p) => `Starting workflow "${p.title}" (${count(p.tasks.length, 'task')})`,
    async execute(params, ctx) {
      try {
        const wf = await service.create({
          agent_id: ctx.turn.agentId,
          title: params.title,
          tasks: params.tasks,
          concurrency: params.concurrency,
          brain: ctx.turn.brain,
          model: ctx.turn.model,
        });
        return textResult(
          `Started workflow ${wf.id} ${JSON.stringify(wf.title)} with ${wf.tasks.length} task${wf.tasks.length === 1 ? '' : 's'} ` +
            `(concurrency ${wf.concurrency}). Check on it with workflow_get {"id": "${wf.id}"}.`,
          { workflow_id: wf.id },
        );
      } catch (err) {
        if (err instanceof WorkflowInputError) {
          throw new Error(`workflow not started: invalid workflow, ${count(err.details.length, 'problem')}:\n${err.details.map((d) => `- ${issueLine({ path: [d.path], message: d.message })}`).join('\n')}`);
        }
        throw err;
      }
    },
  });
}
