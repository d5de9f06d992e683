/**
 * The file name of a reply attachment: what `reply_attachment` accepts (its `name`, or the file's
 * own name) and what a download's Content-Disposition carries. A name is a plain file name — no
 * folders, no control characters, line separators, invisible characters (U+00AD, U+034F, U+115F, U+1160, U+17B4, U+17B5, U+180B–U+180F, U+200B, U+2060–U+2065, U+206A–U+206F, U+3164, U+FEFF, U+FFA0, U+FFF9–U+FFFB, U+13430–U+1343F, U+1BCA0–U+1BCA3, U+1D173–U+1D17A, U+E0000–U+E007F outside a subdivision flag, the variation selectors U+FE00–U+FE0F and U+E0100–U+E01EF not after a character they apply to: U+FE0E and U+FE0F apply to an emoji beyond ASCII, U+FE0F also to a digit, # or * in a keycap (followed by U+20E3); U+FE00–U+FE0D to a visible character beyond ASCII; U+E0100–U+E01EF to an ideograph)
 * or bidirectional controls (src/unsafe-chars.ts), at least one visible character — so a user
 * sees and saves what the model named, and a U+202E cannot show `ü\u202Egnp.exe` as "üexe.png".
 */
import { firstUnsafeChar, hasText, noVisibleCharProblem, stripUnsafeChars, unsafeCharProblem } from '../unsafe-chars.js';

/** The last segment of `name` after any `/` or `\`. */
function lastSegment(name: string): string {
  return name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
}

/**
 * Why `name` cannot be an attachment's file name, or undefined when it can. The reason is a
 * phrase that follows the name (`must be …`) and ends with what to send instead:
 * - a character src/unsafe-chars.ts refuses → `must not contain U+202E (a bidirectional control),
 *   found at character 2: no control characters, line or paragraph separators, invisible
 *   characters or bidirectional controls are allowed; send the name without them, e.g. "ügnp.exe"`;
 * - a folder (`/` or `\`) → `must be a file name without folders (no / or \): send e.g. "evil.txt"`;
 * - `.` or `..` → `must be a file name, not "." or "..": send e.g. "report.pdf"`;
 * - no visible character (only whitespace, blank letters such as U+3164, combining marks or format
 *   characters: the check turn input uses) → `must have a visible character, not only whitespace
 *   or invisible characters (found U+3164): send a name people can read, e.g. "report.pdf"`.
 */
export function attachmentNameProblem(name: string): string | undefined {
  if (firstUnsafeChar(name) !== undefined) {
    const suggestion = downloadName(name);
    return unsafeCharProblem(name, `send the name without them${suggestion === FALLBACK_NAME ? '' : `, e.g. ${JSON.stringify(suggestion)}`}`);
  }
  if (/[/\\]/.test(name)) {
    const base = lastSegment(name);
    return `must be a file name without folders (no / or \\): send e.g. ${JSON.stringify(base === '' || base === '.' || base === '..' ? 'report.pdf' : base)}`;
  }
  if (name === '.' || name === '..') return 'must be a file name, not "." or "..": send e.g. "report.pdf"';
  return noVisibleCharProblem(name, 'send a name people can read, e.g. "report.pdf"');
}

/** The name a download falls back to when nothing of the stored name is left. */
const FALLBACK_NAME = 'attachment';

/**
 * The file name a download is served under: `name` without the characters src/unsafe-chars.ts lists,
 * reduced to its last segment after any `/` or `\`; `attachment` when nothing visible (or only
 * `.` or `..`) is left — a name of only blank letters such as U+3164 included. Names
 * `reply_attachment` accepts pass unchanged; this guards attachments stored before it refused
 * such names.
 */
export function downloadName(name: string): string {
  const base = lastSegment(stripUnsafeChars(name));
  return base === '.' || base === '..' || !hasText(base) ? FALLBACK_NAME : base;
}
