/**
 * One rule for the names and titles that clients or the model give — schedule names, background
 * job titles, workflow titles and task labels, model names (src/model/model-name.ts; brain page
 * titles and attachment names use the same helpers of src/unsafe-chars.ts with their own wording):
 * a control character, a line or paragraph separator, an invisible character or a bidirectional
 * control is refused, not stripped ({@link unsafeCharProblem}), and so is a name with no visible
 * character ({@link noVisibleCharProblem}: only blank letters such as U+3164, combining marks or
 * format characters, or only private-use characters or noncharacters). How a kind of name differs
 * — what its messages say to send, whether it needs a visible character, whether white space at
 * its ends is refused instead of trimmed — is its {@link NameRule}.
 */
import type { z } from 'zod';
import { hex4, noVisibleCharProblem, quoteForDisplayClipped, unsafeCharProblem } from './unsafe-chars.js';

/** A name problem: what is wrong (a zod-like issue code) and the message ({@link nameProblem}). */
export interface NameProblem {
  /** `invalid_format`: a character that must not be there (white space at an end too); `too_small`: no visible character. */
  code: 'invalid_format' | 'too_small';
  message: string;
}

/**
 * How one kind of name is checked, beyond the characters every name refuses. Every field is
 * optional; the defaults are the rule for a name people read (a schedule name, a job title).
 */
export interface NameRule {
  /** What a refusal for an unsafe character says to send; default `send the <noun> as one line of plain text without them`. */
  sendWithoutChars?: string;
  /** What a refusal for a name with nothing visible (or only white space) says to send; default `send a short <noun> in words`. */
  sendName?: string;
  /**
   * Whether the name must have a visible character ({@link noVisibleCharProblem}); default true.
   * False for a model name: a model endpoint reads it, not a person, and refuses a name it does not list.
   */
  needsVisibleChar?: boolean;
  /**
   * Whether white space (`\s`) at the start or the end is refused (`invalid_format`) instead of
   * left to the field's own `.trim()`; default false. True for a model name, which is sent to the
   * model endpoint as given: `" gpt "` names no model.
   */
  refuseEdgeSpace?: boolean;
  /**
   * Whether every format character (`\p{Cf}`) is refused too — the zero-width non-joiner and joiner
   * U+200C and U+200D among them, which other names keep for Persian, Indic scripts and emoji
   * (src/unsafe-chars.ts `UnsafeCharOptions.formatChars`); default false. True for a model name,
   * an identifier the model endpoint matches: `gpt\u200D-4o` shows as `gpt-4o` and names no model.
   */
  refuseFormatChars?: boolean;
}

/**
 * Why `text` cannot be a `noun` (`name`, `title`, `label`, `model name`), or undefined: the message
 * is a phrase that follows the field and ends with what to send —
 * - `must not contain U+202E (a bidirectional control), found at character 5: no control
 *   characters, line or paragraph separators, invisible characters or bidirectional controls are
 *   allowed; send the name as one line of plain text without them` (`invalid_format`;
 *   {@link NameRule.sendWithoutChars}; src/unsafe-chars.ts `unsafeCharProblem`; with
 *   {@link NameRule.refuseFormatChars}, every format character too, and `no control characters,
 *   line or paragraph separators, invisible or format characters or bidirectional controls`);
 * - with {@link NameRule.refuseEdgeSpace}, `must not start or end with white space (found U+0020
 *   at the start): remove it, as in "gpt"` (`invalid_format`; text of only white space ends
 *   with {@link NameRule.sendName} instead of an example);
 * - unless {@link NameRule.needsVisibleChar} is false, `must have a visible character, not only
 *   whitespace or invisible characters (found U+3164): send a short name in words` (`too_small`).
 *
 * The characters are checked on the text as sent, before any trimming: JavaScript's `trim()`
 * removes U+FEFF, which must be refused, not stripped. Otherwise empty and whitespace-only text is
 * left to the field's own emptiness check.
 */
export function nameProblem(text: string, noun: string, rule: NameRule = {}): NameProblem | undefined {
  const sendName = rule.sendName ?? `send a short ${noun} in words`;
  const unsafe = unsafeCharProblem(text, rule.sendWithoutChars ?? `send the ${noun} as one line of plain text without them`, { formatChars: rule.refuseFormatChars });
  if (unsafe !== undefined) return { code: 'invalid_format', message: unsafe };
  if (rule.refuseEdgeSpace) {
    const edge = /^\s/u.exec(text)?.[0] ?? /\s$/u.exec(text)?.[0];
    if (edge !== undefined) {
      const where = /^\s/u.test(text) ? 'start' : 'end';
      const trimmed = text.trim();
      const send = trimmed === '' ? sendName : `remove it, as in ${quoteForDisplayClipped(trimmed)}`;
      return { code: 'invalid_format', message: `must not start or end with white space (found U+${hex4(edge)} at the ${where}): ${send}` };
    }
  }
  if (text.trim() === '' || rule.needsVisibleChar === false) return undefined;
  const invisible = noVisibleCharProblem(text, sendName);
  return invisible === undefined ? undefined : { code: 'too_small', message: invisible };
}

/**
 * {@link nameProblem} as a zod check (`z.string().check(nameCheck('name'))`): one issue `{code:
 * 'custom', message}` at the field, so a REST 400 `invalid_request` has details `[{path, code:
 * 'custom', message}]` and a tool's argument error `- <field>: <message>`. Put it before the field's
 * `.trim()` and emptiness checks, which then do not run when it refuses the name.
 */
export function nameCheck(noun: string, rule: NameRule = {}): z.core.CheckFn<string> {
  return (ctx) => {
    const problem = nameProblem(ctx.value, noun, rule);
    // continue: false — the field's later checks (trim, emptiness, length) do not run on a refused name.
    if (problem) ctx.issues.push({ code: 'custom', message: problem.message, input: ctx.value, continue: false });
  };
}
