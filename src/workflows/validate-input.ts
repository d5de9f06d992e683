/**
 * Validation of a workflow creation request (REST body or `workflow_start` arguments), collecting
 * every problem as `{path, code, message}` (like a 400 `invalid_request`'s details) so the caller
 * can fix them all at once.
 */
import { MAX_LISTED_ISSUES } from '../errors.js';
import type { JsonObject } from '../runtime/json.js';
import { codePointCount } from '../runtime/text-cut.js';
import { issueLine } from '../zod-messages.js';
import { nameProblem } from '../name-check.js';
import { modelNameProblem } from '../model/model-name.js';
import { AGENT_ID_RULE } from '../agent-id.js';
import { namePatternProblem } from '../name-pattern.js';
import { resultSchemaIssues } from './result-schema.js';
import { WorkflowInputError, type CreateWorkflowInput, type WorkflowIssue } from './types.js';

/** Longest workflow title, characters (code points: an emoji counts 1). */
export const MAX_TITLE_CHARS = 200;
/** Longest task label, characters (code points). */
export const MAX_LABEL_CHARS = 200;
/** Longest task prompt, characters (code points). */
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

type Problem = Omit<WorkflowIssue, 'path'>;

/**
 * A string with something besides white space, of at most `max` characters — code points, so an
 * emoji counts 1 (src/runtime/text-cut.ts codePointCount, as the REST schema's zod bound and brain
 * titles count); `too_big` says `must be at most <max> characters long, got <n>`; `too_small`
 * (empty or only white space) says `must not be empty`, or with `send` `must not be empty or only whitespace: <send>`.
 */
const nonEmpty = (v: unknown, max: number, send?: string): Problem | null =>
  typeof v !== 'string'
    ? { code: 'invalid_type', message: 'must be a non-empty string' }
    : v.trim() === ''
      ? { code: 'too_small', message: send ? `must not be empty or only whitespace: ${send}` : 'must not be empty' }
      : v.length > max && codePointCount(v) > max
        ? { code: 'too_big', message: `must be at most ${max} characters long, got ${codePointCount(v)}` }
        : null;

/**
 * {@link nonEmpty} for a name people read (the title, a task label): also one line of plain text
 * with a visible character (src/name-check.ts) — `invalid_format` for a control, separator,
 * invisible or bidi character, `too_small` for none visible, and for empty or only white space
 * (`""` and `"  "` alike: `must not be empty or only whitespace: send a short title in words`).
 */
const shownName = (v: unknown, max: number, noun: string): Problem | null => {
  // The characters first, on the text as sent: trim() strips U+FEFF, which is refused, not stripped.
  const chars = typeof v === 'string' ? nameProblem(v, noun) : undefined;
  if (chars?.code === 'invalid_format') return chars;
  const basic = nonEmpty(v, max, `send a short ${noun} in words`);
  if (basic || typeof v !== 'string') return basic;
  return nameProblem(v, noun) ?? null;
};

/** `tasks[i].result_schema` plus a JSON Pointer into it (`#/properties/v`), spelled as a path: `….properties.v`. */
const schemaPath = (base: string, pointer: string) =>
  base + pointer.slice(1).split('/').slice(1).map((seg) => `.${seg.replace(/~1/g, '/').replace(/~0/g, '~')}`).join('');

/**
 * Check `input` against the workflow rules: agent id, title, 1..`maxTasks` tasks each with a label
 * (title and labels one line of plain text with a visible character: src/name-check.ts),
 * a prompt and a result schema in the allowed subset (./result-schema.ts), concurrency 1..32.
 * @returns the input with defaults applied.
 * @throws WorkflowInputError: details = every violation as `{path, code, message}`, e.g.
 *   `{path: 'tasks[1].result_schema.properties.x.anyOf', code: 'unsupported_schema', message: '"anyOf" is not allowed …'}`;
 *   its message names the first one and counts the others; details holds the first
 *   MAX_LISTED_ISSUES (20).
 */
export function validateWorkflowInput(input: CreateWorkflowInput, maxTasks: number): ValidWorkflowInput {
  const errors: WorkflowIssue[] = [];
  const add = (path: string, p: Problem | null) => {
    if (p) errors.push({ path, ...p });
  };
  const agentIdProblem = namePatternProblem(input.agent_id, AGENT_ID_RULE);
  if (agentIdProblem !== undefined) add('agent_id', { code: 'invalid_format', message: agentIdProblem });
  add('title', shownName(input.title, MAX_TITLE_CHARS, 'title'));
  const concurrency = input.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < MIN_CONCURRENCY || concurrency > MAX_CONCURRENCY) {
    add('concurrency', { code: Number.isInteger(concurrency) ? (concurrency < MIN_CONCURRENCY ? 'too_small' : 'too_big') : 'invalid_type', message: `must be an integer from ${MIN_CONCURRENCY} to ${MAX_CONCURRENCY}` });
  }
  if (input.model !== undefined && (typeof input.model !== 'string' || input.model === '')) add('model', { code: 'invalid_type', message: 'must be a non-empty string' });
  else if (typeof input.model === 'string') {
    const problem = modelNameProblem(input.model);
    if (problem) add('model', { code: 'invalid_format', message: problem });
  }
  if (!Array.isArray(input.tasks) || input.tasks.length === 0) {
    add('tasks', { code: Array.isArray(input.tasks) ? 'too_small' : 'invalid_type', message: 'must be a non-empty list' });
  } else if (input.tasks.length > maxTasks) {
    add('tasks', { code: 'too_big', message: `must have at most ${maxTasks} tasks (WORKFLOW_MAX_TASKS), got ${input.tasks.length}` });
  } else {
    input.tasks.forEach((task, i) => {
      if (task === null || typeof task !== 'object') {
        add(`tasks[${i}]`, { code: 'invalid_type', message: 'must be an object {label, prompt, result_schema}' });
        return;
      }
      add(`tasks[${i}].label`, shownName(task.label, MAX_LABEL_CHARS, 'label'));
      add(`tasks[${i}].prompt`, nonEmpty(task.prompt, MAX_PROMPT_CHARS));
      for (const e of resultSchemaIssues(task.result_schema)) {
        add(schemaPath(`tasks[${i}].result_schema`, e.pointer), { code: 'unsupported_schema', message: e.message });
      }
    });
  }
  if (errors.length > 0) {
    const more = errors.length - 1;
    // details lists at most MAX_LISTED_ISSUES, as every refusal's.
    const listed = errors.length > MAX_LISTED_ISSUES ? `, which lists the first ${MAX_LISTED_ISSUES}` : '';
    throw new WorkflowInputError(
      `invalid workflow: ${issueLine({ path: [errors[0].path], message: errors[0].message })}${more > 0 ? ` (and ${more} more problem${more === 1 ? '' : 's'}: see details${listed})` : ''}`,
      errors.slice(0, MAX_LISTED_ISSUES),
    );
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
