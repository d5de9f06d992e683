/**
 * The `model` a client or the model names (a turn, a tool preview, a schedule, a workflow, a
 * background job): one line of plain text. A control character, a line or paragraph separator, an
 * invisible character or a bidirectional control is refused ({@link unsafeCharProblem}) — such a
 * name would be stored, sent to the model endpoint and written raw into log lines, and no model
 * endpoint lists one.
 */
import { z } from 'zod';
import { unsafeCharProblem } from '../unsafe-chars.js';

/** What a refused model name says to send. */
const SEND = 'send the model name as the model endpoint lists it, without them';

/**
 * Why `model` cannot be a model name, or undefined: `must not contain …: found U+202E (a
 * bidirectional control); send the model name as the model endpoint lists it, without them`.
 */
export function modelNameProblem(model: string): string | undefined {
  return unsafeCharProblem(model, SEND);
}

/**
 * {@link modelNameProblem} as a zod check (`z.string().check(modelNameCheck)`): one issue
 * `{code: 'custom', message}` at the field, so a REST 400 `invalid_request` names the character.
 */
export const modelNameCheck: z.core.CheckFn<string> = (ctx) => {
  const problem = modelNameProblem(ctx.value);
  if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
};

/** A `model` field: 1 to 200 characters, none that {@link modelNameProblem} refuses. */
export const ModelNameSchema = z.string().min(1).max(200).check(modelNameCheck);
