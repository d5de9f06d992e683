/**
 * One rule for the names and titles people read that clients or the model give — schedule names,
 * background job titles, workflow titles and task labels (brain page titles and attachment names
 * use the same helpers of src/unsafe-chars.ts with their own wording): a control character, a
 * line or paragraph separator, an invisible character or a bidirectional control is refused, not
 * stripped ({@link unsafeCharProblem}), and so is a name with no visible character
 * ({@link noVisibleCharProblem}: only blank letters such as U+3164, combining marks or format
 * characters).
 */
import type { z } from 'zod';
import { noVisibleCharProblem, unsafeCharProblem } from './unsafe-chars.js';

/** A name problem: what is wrong (a zod-like issue code) and the message ({@link nameProblem}). */
export interface NameProblem {
  /** `invalid_format`: a character that must not be there; `too_small`: no visible character. */
  code: 'invalid_format' | 'too_small';
  message: string;
}

/**
 * Why `text` cannot be a `noun` (`name`, `title`, `label`) people read, or undefined: the message is
 * a phrase that follows the field and ends with what to send — `must not contain …: found U+202E
 * (a bidirectional control); send the name as one line of plain text without them`
 * (`invalid_format`) or `must have a visible character, not only whitespace or invisible
 * characters (found U+3164): send a short name in words` (`too_small`). The characters are
 * checked on the text as sent, before any trimming: JavaScript's `trim()` removes U+FEFF, which
 * must be refused, not stripped. Empty and whitespace-only text is left to the field's own
 * emptiness check.
 */
export function nameProblem(text: string, noun: string): NameProblem | undefined {
  const unsafe = unsafeCharProblem(text, `send the ${noun} as one line of plain text without them`);
  if (unsafe !== undefined) return { code: 'invalid_format', message: unsafe };
  if (text.trim() === '') return undefined;
  const invisible = noVisibleCharProblem(text, `send a short ${noun} in words`);
  return invisible === undefined ? undefined : { code: 'too_small', message: invisible };
}

/**
 * {@link nameProblem} as a zod check (`z.string().check(nameCheck('name'))`): one issue `{code:
 * 'custom', message}` at the field, so a REST 400 `invalid_request` has details `[{path, code:
 * 'custom', message}]` and a tool's argument error `- <field>: <message>`. Put it before the field's
 * `.trim()` and emptiness checks, which then do not run when it refuses the name.
 */
export function nameCheck(noun: string): z.core.CheckFn<string> {
  return (ctx) => {
    const problem = nameProblem(ctx.value, noun);
    // continue: false — the field's later checks (trim, emptiness, length) do not run on a refused name.
    if (problem) ctx.issues.push({ code: 'custom', message: problem.message, input: ctx.value, continue: false });
  };
}
