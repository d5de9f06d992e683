/**
 * Validation of a workflow creation request (REST body or `workflow_start` arguments), collecting
 * every problem as one "path: message" line so the caller can fix them all at once.
 */
import type { JsonObject } from '../runtime/json.js';
import { checkResultSchema } from './result-schema.js';
import { WorkflowInputError, type CreateWorkflowInput } from './types.js';

export const AGENT_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_TITLE_CHARS = 200;
export const MAX_LABEL_CHARS = 200;
export const MAX_PROMPT_CHARS = 32_000;
export const MIN_CONCURRENCY = 1;
export const MAX_CONCURRENCY = 32;
export const DEFAULT_CONCURRENCY = 4;

export interface ValidWorkflowInput {
  agent_id: string;
  title: string;
  tasks: { label: string; prompt: string; result_schema: JsonObject }[];
  concurrency: number;
  brain: boolean;
  model: string | null;
}

const nonEmpty = (v: unknown, max: number): string | null =>
  typeof v !== 'string' || v.trim() === '' ? 'must be a non-empty string' : v.length > max ? `at most ${max} characters` : null;

/**
 * Check `input` against the workflow rules: agent id, title, 1..`maxTasks` tasks each with a label,
 * a prompt and a result schema in the allowed subset (./result-schema.ts), concurrency 1..32.
 * @returns the input with defaults applied.
 * @throws WorkflowInputError listing each violation, e.g. `tasks[1].result_schema#/properties/x/anyOf: …`.
 */
export function validateWorkflowInput(input: CreateWorkflowInput, maxTasks: number): ValidWorkflowInput {
  const errors: string[] = [];
  if (typeof input.agent_id !== 'string' || !AGENT_ID_PATTERN.test(input.agent_id)) {
    errors.push(`agent_id: must match ${AGENT_ID_PATTERN.source}`);
  }
  const titleProblem = nonEmpty(input.title, MAX_TITLE_CHARS);
  if (titleProblem) errors.push(`title: ${titleProblem}`);
  const concurrency = input.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < MIN_CONCURRENCY || concurrency > MAX_CONCURRENCY) {
    errors.push(`concurrency: must be an integer from ${MIN_CONCURRENCY} to ${MAX_CONCURRENCY}`);
  }
  if (input.model !== undefined && (typeof input.model !== 'string' || input.model === '')) errors.push('model: must be a non-empty string');
  if (!Array.isArray(input.tasks) || input.tasks.length === 0) {
    errors.push('tasks: must be a non-empty list');
  } else if (input.tasks.length > maxTasks) {
    errors.push(`tasks: ${input.tasks.length} tasks; at most ${maxTasks} per workflow (WORKFLOW_MAX_TASKS)`);
  } else {
    input.tasks.forEach((task, i) => {
      if (task === null || typeof task !== 'object') {
        errors.push(`tasks[${i}]: must be an object {label, prompt, result_schema}`);
        return;
      }
      const label = nonEmpty(task.label, MAX_LABEL_CHARS);
      if (label) errors.push(`tasks[${i}].label: ${label}`);
      const prompt = nonEmpty(task.prompt, MAX_PROMPT_CHARS);
      if (prompt) errors.push(`tasks[${i}].prompt: ${prompt}`);
      for (const e of checkResultSchema(task.result_schema)) errors.push(`tasks[${i}].result_schema${e}`);
    });
  }
  if (errors.length > 0) {
    throw new WorkflowInputError(`invalid workflow: ${errors.length} problem${errors.length === 1 ? '' : 's'}`, errors);
  }
  return {
    agent_id: input.agent_id,
    title: input.title,
    tasks: input.tasks.map((t) => ({ label: t.label, prompt: t.prompt, result_schema: t.result_schema as JsonObject })),
    concurrency,
    brain: input.brain ?? false,
    model: input.model ?? null,
  };
}
