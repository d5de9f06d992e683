/**
 * The `model` a client or the model names (a turn, a tool preview, a schedule, a workflow, a
 * background job): one line of plain text, checked by the rule every name follows
 * (src/name-check.ts) with {@link MODEL_NAME_RULE}. A control character, a line or paragraph
 * separator, an invisible or other format character (the zero-width non-joiner and joiner U+200C,
 * U+200D too, which other names keep) or a bidirectional control is refused — such a name would be
 * stored, sent to the model endpoint and written raw into log lines, and no model endpoint lists
 * one: `gpt\u200D-4o` shows as `gpt-4o`.
 */
import { z } from 'zod';
import { nameCheck, nameProblem, type NameRule } from '../name-check.js';

/**
 * How a model name differs from a name people read: its messages say to send the name the model
 * endpoint lists; it needs no visible character of its own (the endpoint, not a person, reads it,
 * and refuses a name it does not list); white space at either end is refused, not trimmed —
 * the name is sent as given, and `" gpt "` names no model; and every format character is refused
 * ({@link NameRule.refuseFormatChars}), U+200C and U+200D too.
 */
export const MODEL_NAME_RULE: NameRule = {
  sendWithoutChars: 'send the model name as the model endpoint lists it, without them',
  sendName: 'send the model name as the model endpoint lists it',
  needsVisibleChar: false,
  refuseEdgeSpace: true,
  refuseFormatChars: true,
};

/**
 * The rule of the MODEL variable: the characters of {@link MODEL_NAME_RULE} (format characters
 * too), no visible character needed either, and a refusal that says to set it: `MODEL=… : must
 * not contain U+202E (a bidirectional control), found at character 4: no … are allowed; set MODEL to the model name as
 * the model endpoint lists it, without them`. White space at its ends is not checked: every
 * variable is trimmed before it is checked, and a blank one is unset (src/config.ts `loadConfig`),
 * so none is left to refuse.
 */
export const MODEL_VARIABLE_RULE: NameRule = {
  sendWithoutChars: 'set MODEL to the model name as the model endpoint lists it, without them',
  needsVisibleChar: false,
  refuseFormatChars: true,
};

/**
 * Why `model` cannot be a model name, or undefined: `must not contain U+202E (a bidirectional
 * control), found at character 4: no … are allowed; send the model name as the model endpoint
 * lists it, without them`, or
 * `must not start or end with white space (found U+0020 at the start): remove it, as in "gpt"`.
 */
export function modelNameProblem(model: string): string | undefined {
  return nameProblem(model, 'model name', MODEL_NAME_RULE)?.message;
}

/**
 * {@link modelNameProblem} as a zod check (`z.string().check(modelNameCheck)`): one issue
 * `{code: 'custom', message}` at the field, so a REST 400 `invalid_request` names the character.
 */
export const modelNameCheck: z.core.CheckFn<string> = nameCheck('model name', MODEL_NAME_RULE);

/** A `model` field: 1 to 200 characters, none that {@link modelNameProblem} refuses. */
export const ModelNameSchema = z.string().min(1).max(200).check(modelNameCheck);
