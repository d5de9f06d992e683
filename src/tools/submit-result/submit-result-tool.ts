/**
 * `submit_result` {result}: how a workflow task turn ends. Built per task turn from the task's raw
 * `result_schema`, sent as `jsonSchema` with `strict: true` (parameters `{result: <schema>}`,
 * `required: ["result"]`, `additionalProperties: false`), so the provider's strict mode is the first
 * gate. The second gate is the workflow service (`WorkflowTaskBinding.submit`), which re-validates
 * against the persisted schema with Ajv before writing:
 * - accepted → "Result accepted" with `terminate: true` (the turn ends after this round);
 * - rejected → throws, so the model gets `Error: …` listing each violation and the turn goes on.
 */
import { z } from 'zod';
import type { TurnContext, WorkflowTaskBinding } from '../../assembly/context.js';
import type { JsonValue } from '../../runtime/json.js';
import { defineWorkerTool, textResult } from '../../runtime/tool.js';
import { submitResultParameters } from '../../workflows/result-schema.js';

export const SUBMIT_RESULT_TOOL = 'submit_result';

const schema = z.strictObject({
  result: z.custom<JsonValue>((v) => v !== undefined, { message: 'required: the task result' }),
});

/** The `submit_result` tool of one task turn, from its binding (raw schema + submit). */
export function createSubmitResultTool(binding: WorkflowTaskBinding) {
  return defineWorkerTool<typeof schema, ReturnType<typeof textResult>, TurnContext>({
    name: SUBMIT_RESULT_TOOL,
    description:
      "Submit this task's final result as `result`, matching the task's result schema exactly. " +
      'Call it once when the work is done; your turn ends when the result is accepted. ' +
      'If it is rejected, fix the listed problems and call it again.',
    schema,
    jsonSchema: submitResultParameters(binding.resultSchema),
    strict: true,
    executionMode: 'sequential',
    describeActivity: () => 'Submitting the result',
    describeCompletedActivity: () => 'Submitted the result',
    async execute(params) {
      const outcome = await binding.submit(params.result);
      if (!outcome.ok) {
        throw new Error(
          `submit_result rejected: the result does not match the task's result schema:\n` +
            outcome.errors.map((e) => `- ${e}`).join('\n') +
            '\nFix these and call submit_result again with the whole corrected result.',
        );
      }
      return textResult(
        'Result accepted. The task is complete.',
        { workflow_id: binding.workflowId, task_index: binding.taskIndex },
        { terminate: true },
      );
    },
  });
}
