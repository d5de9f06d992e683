/**
 * The texts a workflow task turn gets: its instructions (what the task is, how to finish) and the
 * one repair instruction sent when the model answers in prose instead of calling submit_result.
 */
import type { JsonObject } from '../runtime/json.js';

/** `instructions` of a task turn; the task's prompt is the turn's input. */
export function taskInstructions(opts: { title: string; label: string; index: number; total: number; resultSchema: JsonObject }): string {
  return [
    `You are working on one task of the workflow "${opts.title}": task ${opts.index + 1} of ${opts.total}, "${opts.label}".`,
    'Work only on this task, with the tools you have. You cannot talk to the user; nobody reads prose answers.',
    'When you are done, call submit_result exactly once with {"result": <value>}, where the value matches this JSON Schema exactly:',
    JSON.stringify(opts.resultSchema),
    'If submit_result reports problems, fix them and call it again. The task only counts once a result is accepted.',
  ].join('\n');
}

/** The single repair instruction (only submit_result is offered with it). */
export const REPAIR_INSTRUCTION =
  'You answered without calling submit_result, so this task has no result yet. ' +
  'Call submit_result now with {"result": <value>} matching the result schema. Do not answer in prose.';
