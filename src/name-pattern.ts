/**
 * Refusals of an identifier that must match a pattern — a brain page slug, a skill name — that
 * show the value sent and say what is allowed, in words and as the pattern:
 * `must be 1 to 64 characters — lowercase letters a–z, digits, "_" and "-", starting with a letter
 * (^[a-z][a-z0-9_-]{0,63}$) — got "Deploy Guide": " " is not allowed`. The value is quoted with
 * {@link quoteForDisplayClipped} (escaped, at most 80 characters shown), so a value with a line
 * break or a bidi control cannot act on the reader's display and a 10 000-character one does not
 * fill the message.
 */
import { z } from 'zod';
import { quoteForDisplay, quoteForDisplayClipped } from './unsafe-chars.js';

/** An identifier's rule: the pattern, and its parts for saying what is wrong. */
export interface NamePattern {
  /** The whole rule (anchored), e.g. `/^[a-z][a-z0-9_-]{0,63}$/`. */
  pattern: RegExp;
  /** One character allowed anywhere, e.g. `/[a-z0-9_-]/`. */
  char: RegExp;
  /** One character allowed first, e.g. `/[a-z]/`. */
  first: RegExp;
  /** Most characters. */
  maxChars: number;
  /** The rule in words, without the length: `lowercase letters a–z, digits, "_" and "-", starting with a letter`. */
  words: string;
}

/**
 * Why `value` does not match `p`, or undefined when it does: a phrase that follows the field
 * (`must be 1 to <max> characters — <words> (<pattern>) — got <value quoted>: <what breaks it>`),
 * what breaks it being the first character not allowed (an upper-case letter whose lower case is
 * allowed: `"P" is not allowed: use lower case, "pdf-tools"`, the value in lower case suggested
 * when that matches), a first character not allowed, an empty value or its length. A value that is not a string is named by its kind (`got a number`).
 */
export function namePatternProblem(value: unknown, p: NamePattern): string | undefined {
  if (typeof value === 'string' && p.pattern.test(value)) return undefined;
  const rule = `must be 1 to ${p.maxChars} characters — ${p.words} (${p.pattern.source}) —`;
  if (typeof value !== 'string') return `${rule} got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}`;
  return `${rule} got ${quoteForDisplayClipped(value)}: ${whyNot(value, p)}`;
}

function whyNot(value: string, p: NamePattern): string {
  if (value === '') return 'it is empty';
  const bad = [...value].find((ch) => !p.char.test(ch));
  if (bad !== undefined) {
    // An upper-case letter whose lower case is allowed: say so (`"P" is not allowed: use lower case, "pdf-tools"`).
    const lower = bad.toLowerCase();
    if (lower !== bad && p.char.test(lower)) {
      const suggestion = value.toLowerCase();
      return `${quoteForDisplay(bad)} is not allowed: use lower case${p.pattern.test(suggestion) ? `, ${quoteForDisplayClipped(suggestion)}` : ''}`;
    }
    return `${showChar(bad)} is not allowed`;
  }
  const head = String.fromCodePoint(value.codePointAt(0)!);
  if (!p.first.test(head)) return `it may not start with ${quoteForDisplay(head)}`;
  return `it has ${value.length} characters`;
}

/**
 * One character of a refused name as a message shows it: printable ASCII quoted (`" "`); a
 * visible letter, digit, punctuation or symbol beyond ASCII quoted with its code point (`"é"
 * (U+00E9)`); anything else — a combining mark on its own, a joiner, a format or control
 * character, a space other than U+0020 — by its code point alone (`U+0301`), since quoted it
 * would show as nothing or merge with the quote.
 */
function showChar(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const code = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  if (cp >= 0x20 && cp <= 0x7e) return quoteForDisplay(ch);
  return /^[\p{L}\p{N}\p{P}\p{S}]$/u.test(ch) ? `${quoteForDisplay(ch)} (${code})` : code;
}

/**
 * `z.string()` checked against `p` ({@link namePatternProblem}): one issue `{code:
 * 'invalid_format', message}` at the field, so a REST 400 `invalid_request` has details `[{path,
 * code: 'invalid_format', message}]` and a message `<path> must be …, got "…": …`.
 */
export function namePatternString(p: NamePattern): z.ZodString {
  return z.string().regex(p.pattern, { error: (iss) => namePatternProblem(iss.input, p) });
}
