/**
 * Characters that must not reach a name or a one-line label a person reads: control characters
 * (`\p{Cc}`: C0 U+0000–U+001F, DEL U+007F, C1 U+0080–U+009F) and bidirectional controls (the
 * marks U+061C, U+200E, U+200F, the embeddings and overrides U+202A–U+202E, the isolates
 * U+2066–U+2069). A control character can break a line, a header or a terminal; a bidi control
 * can make `invoice_\u202Egnp.exe` show as "invoice_exe.png". Other format characters (a
 * zero-width joiner inside an emoji sequence) are ordinary text here.
 *
 * One definition for every place that meets them: text the service derives for display drops
 * them ({@link stripUnsafeChars}: `input_preview`, the file name of a download's
 * Content-Disposition); a name a client or the model gives is refused when it has one
 * ({@link firstUnsafeChar}: brain page titles, reply attachment names, skill archive entries).
 */

/** The bidirectional controls (see the module comment). */
const BIDI_CONTROL = '\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069';
const UNSAFE_ONE = new RegExp(`[\\p{Cc}${BIDI_CONTROL}]`, 'u');
const UNSAFE_ALL = new RegExp(`[\\p{Cc}${BIDI_CONTROL}]`, 'gu');
const BIDI_ONE = new RegExp(`[${BIDI_CONTROL}]`, 'u');

/**
 * How refusals describe the characters, for messages: what is not allowed, by range.
 */
export const UNSAFE_CHARS_DESCRIPTION =
  'control characters (U+0000–U+001F, U+007F–U+009F: line breaks, tabs, NUL, ESC, …) or bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)';

/** The first control character or bidi control of `text` ({@link UNSAFE_CHARS_DESCRIPTION}), or undefined. */
export function firstUnsafeChar(text: string): string | undefined {
  return UNSAFE_ONE.exec(text)?.[0];
}

/** True when `text` has a control character or a bidi control. */
export function hasUnsafeChars(text: string): boolean {
  return UNSAFE_ONE.test(text);
}

/** `text` without its control characters and bidi controls (everything else kept as is). */
export function stripUnsafeChars(text: string): string {
  return text.replace(UNSAFE_ALL, '');
}

/**
 * One unsafe character for a message: `U+202E (a bidirectional control)`,
 * `U+0001 (a control character)`.
 */
export function describeUnsafeChar(ch: string): string {
  return `U+${hex4(ch)} (${BIDI_ONE.test(ch) ? 'a bidirectional control' : 'a control character'})`;
}

/**
 * `text` with each control character and bidi control written as a `\uXXXX` escape (everything
 * else kept), for echoing a client's value in a message without it acting on the reader's display.
 */
export function escapeUnsafeChars(text: string): string {
  return text.replace(UNSAFE_ALL, (c) => `\\u${hex4(c)}`);
}

/** The code point of `ch` as 4+ upper-case hex digits (`202E`). */
function hex4(ch: string): string {
  return ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
}
