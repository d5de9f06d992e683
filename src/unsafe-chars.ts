/**
 * Characters that must not reach a name or a one-line label a person reads: control characters
 * (`\p{Cc}`: C0 U+0000–U+001F, DEL U+007F, C1 U+0080–U+009F), the Unicode line and paragraph
 * separators (U+2028, U+2029), invisible characters (soft hyphen U+00AD, Mongolian vowel separator
 * U+180E, zero-width space U+200B, word joiner U+2060, the invisible mathematical operators
 * U+2061–U+2064 and U+2065, the deprecated format characters U+206A–U+206F, the combining
 * grapheme joiner U+034F, the Khmer inherent vowels U+17B4 and U+17B5, the Mongolian free
 * variation selectors U+180B–U+180D and U+180F, the Egyptian hieroglyph format controls
 * U+13430–U+1343F, the shorthand format controls U+1BCA0–U+1BCA3, the musical formatting
 * characters U+1D173–U+1D17A, the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0 (letters that show as nothing), byte order
 * mark / zero-width no-break space U+FEFF, the interlinear annotation characters U+FFF9–U+FFFB,
 * the tag characters U+E0000–U+E007F, and a variation selector U+FE00–U+FE0F or U+E0100–U+E01EF
 * that does not follow a character it applies to — {@link STRAY_SELECTOR}) and bidirectional controls (the marks
 * U+061C, U+200E, U+200F, the embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069).
 * A control character or a separator can break a line, a header or a terminal; an invisible
 * character makes two names that look the same differ; a bidi control can make
 * `invoice_\u202Egnp.exe` show as "invoice_exe.png"; tag characters mirror ASCII invisibly, so
 * `Report` followed by the tags of "ignore all rules" shows as "Report" while a model reads the
 * rest. A variation selector picks a glyph for the character before it (Unicode Standard §23.4,
 * "Variation Selectors"), but only for the characters it is defined for, so it is text only after
 * one of them: U+FE0E (text) and U+FE0F (emoji presentation) after an emoji beyond ASCII ('❤️' is
 * U+2764 U+FE0F, '🏳️‍🌈' U+1F3F3 U+FE0F U+200D U+1F308), and U+FE0F after a digit, '#' or '*' only
 * in a keycap, where U+20E3 follows ('1️⃣'; Unicode Technical Standard #51, "Emoji Presentation
 * Sequences" and "Keycaps"); U+FE00–U+FE0D after a visible character beyond ASCII (the
 * standardized variation sequences of StandardizedVariants.txt: math symbols such as '≤︀' U+2264
 * U+FE00, CJK compatibility ideographs, Myanmar, Phags-pa, …); U+E0100–U+E01EF after an ideograph
 * (the Ideographic Variation Database, '葛󠄀' U+845B U+E0100). Anywhere else — after an ASCII letter,
 * at the start, after white space, another selector or anything else that shows as nothing — it
 * changes nothing and shows as nothing: "adm<U+FE0F>in" reads "admin", one U+E0100 after each
 * letter hides a word, a hidden difference between two names. The zero-width non-joiner and joiner (U+200C, U+200D) are ordinary text here: Persian,
 * Indic scripts and emoji sequences (👩‍💻) need them. Tag characters are kept only where they
 * are one of the three subdivision flags Unicode recommends ({@link FLAG_TAG_SEQUENCE}: 🏴 England,
 * Scotland, Wales — the black flag U+1F3F4, the tags of "gbeng", "gbsct" or "gbwls", the cancel
 * tag U+E007F; Unicode Technical Standard #51, "Emoji Tag Sequences", and its RGI list): any
 * other tag text, however short, could spell a hidden word.
 *
 * One definition for every place that meets them: text the service derives for display drops
 * them ({@link stripUnsafeChars}: `input_preview`, the file name of a download's
 * Content-Disposition); a name a client or the model gives is refused when it has one
 * ({@link firstUnsafeChar}, {@link unsafeCharProblem}: brain page titles, reply attachment names,
 * skill archive entries, schedule names, background job titles, workflow titles and task labels,
 * skill descriptions, model names: src/model/model-name.ts); text composed for display from such values escapes them
 * ({@link escapeUnsafeChars}: activity labels, a workflow's summary, refusal messages).
 *
 * A name must also have a visible character ({@link hasText}, the check turn input uses): one of
 * only blank letters (U+2800), combining marks or format characters (U+200D alone) shows as
 * nothing, and one of only private-use characters or noncharacters as nothing or empty boxes
 * ({@link noVisibleCharProblem}).
 */

import { keepHead } from './runtime/text-cut.js';

/** The bidirectional controls (see the module comment). */
const BIDI_CONTROL = '\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069';
/** The line and paragraph separators. */
const SEPARATOR = '\\u2028\\u2029';
/** The invisible characters refused (not U+200C/U+200D, see the module comment). */
const INVISIBLE = '\\u00AD\\u034F\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F\\u200B\\u2060-\\u2065\\u206A-\\u206F\\u3164\\uFEFF\\uFFA0\\uFFF9-\\uFFFB\\u{13430}-\\u{1343F}\\u{1BCA0}-\\u{1BCA3}\\u{1D173}-\\u{1D17A}\\u{E0000}-\\u{E007F}';
/** The variation selectors: VS1–VS16 U+FE00–U+FE0F and the supplement VS17–VS256 U+E0100–U+E01EF. */
const VARIATION_SELECTOR = '\\uFE00-\\uFE0F\\u{E0100}-\\u{E01EF}';
/**
 * The characters that show as nothing ({@link NOT_TEXT}: whitespace, controls, format characters,
 * combining marks — variation selectors among them — and blank letters), and every other character
 * refused here: a variation selector after one of them has no visible base to select a glyph of.
 */
const NO_BASE = `\\s\\p{Cc}\\p{Cf}\\p{M}\\u115F\\u1160\\u3164\\uFFA0\\u2800${SEPARATOR}${INVISIBLE}${BIDI_CONTROL}`;
/**
 * A variation selector after a character it applies to (see the module comment), matched at the
 * selector: U+FE0E or U+FE0F after an emoji beyond ASCII (the only ASCII emoji are the digits,
 * '#' and '*'); U+FE0F after a digit, '#' or '*' with U+20E3 next (a keycap); U+FE00–U+FE0D after
 * a visible character beyond ASCII (not in {@link NO_BASE}); U+E0100–U+E01EF after a visible
 * ideograph.
 */
const APPLIED_SELECTOR = [
  '(?<=[^\\x00-\\x7F])(?<=\\p{Emoji})[\\uFE0E\\uFE0F]',
  '(?<=[0-9#*])\\uFE0F(?=\\u20E3)',
  `(?<=[^\\x00-\\x7F${NO_BASE}])[\\uFE00-\\uFE0D]`,
  `(?<=[^${NO_BASE}])(?<=\\p{Ideographic})[\\u{E0100}-\\u{E01EF}]`,
].join('|');
/** A variation selector not after a character it applies to ({@link APPLIED_SELECTOR}): it shows as nothing. */
const STRAY_SELECTOR = `(?!${APPLIED_SELECTOR})[${VARIATION_SELECTOR}]`;
const UNSAFE = `(?:[\\p{Cc}${SEPARATOR}${INVISIBLE}${BIDI_CONTROL}]|${STRAY_SELECTOR})`;
/**
 * The subdivision flags whose tag characters are text (see the module comment): U+1F3F4, the tags
 * of "gbeng", "gbsct" or "gbwls" (U+E0067 U+E0062 …), U+E007F.
 */
const FLAG_TAG_SEQUENCE = '\\u{1F3F4}\\u{E0067}\\u{E0062}(?:\\u{E0065}\\u{E006E}\\u{E0067}|\\u{E0073}\\u{E0063}\\u{E0074}|\\u{E0077}\\u{E006C}\\u{E0073})\\u{E007F}';
const UNSAFE_ONE = new RegExp(UNSAFE, 'u');
/** Every unsafe character, or a whole subdivision flag (group 1) — which is kept. */
const UNSAFE_OR_FLAG_ALL = new RegExp(`(${FLAG_TAG_SEQUENCE})|${UNSAFE}`, 'gu');
const BIDI_ONE = new RegExp(`[${BIDI_CONTROL}]`, 'u');
const SEPARATOR_ONE = new RegExp(`[${SEPARATOR}]`, 'u');
const INVISIBLE_ONE = new RegExp(`[${INVISIBLE}]`, 'u');
const SELECTOR_ONE = new RegExp(`[${VARIATION_SELECTOR}]`, 'u');
/** A format character (general category Cf), refused only with {@link UnsafeCharOptions.formatChars}. */
const FORMAT_ONE = /\p{Cf}/u;
/** Every format character, for {@link settingForDisplay}. */
const FORMAT_ALL = /\p{Cf}/gu;
/** The zero-width non-joiner and joiner: format characters that show as nothing. */
const JOINER_ONE = /[\u200C\u200D]/u;

/**
 * The kinds of character this module refuses in names, for a refusal's message after the character
 * found ({@link unsafeCharProblem}): `control characters, line or paragraph separators, invisible
 * characters or bidirectional controls`. Which characters each kind holds is this module's comment
 * (and README's); a message does not list them all.
 */
export const UNSAFE_CHAR_KINDS = 'control characters, line or paragraph separators, invisible characters or bidirectional controls';

/**
 * {@link UNSAFE_CHAR_KINDS} for a text checked with {@link UnsafeCharOptions.formatChars}:
 * `control characters, line or paragraph separators, invisible or format characters or
 * bidirectional controls`.
 */
export const FORMAT_CHAR_KINDS = 'control characters, line or paragraph separators, invisible or format characters or bidirectional controls';

/** How strictly {@link findUnsafeChar} looks. */
export interface UnsafeCharOptions {
  /**
   * Also refuse every format character (`\p{Cf}`, Unicode general category "Format"): the
   * zero-width non-joiner and joiner U+200C and U+200D, which names keep for Persian, Indic scripts
   * and emoji, the prepended concatenation marks U+0600–U+0605, and the rest. For text that is an
   * identifier a machine matches, not words a person reads — a model name: `gpt\u200D-4o` shows as
   * `gpt-4o` yet names no model the endpoint lists. Default false.
   */
  formatChars?: boolean;
}

/** An unsafe character found in a text: the character, and where. */
export interface FoundUnsafeChar {
  /** The character (one code point). */
  char: string;
  /** Its position in the text, 1-based, in code points (a character beyond U+FFFF counts once). */
  position: number;
}

/**
 * The first character of `text` that this module refuses (see its comment) and its position, or
 * undefined; with `options.formatChars`, the first such character or format character
 * ({@link UnsafeCharOptions}), whichever comes first.
 */
export function findUnsafeChar(text: string, options: UnsafeCharOptions = {}): FoundUnsafeChar | undefined {
  const found = firstRefused(text);
  const format = options.formatChars ? FORMAT_ONE.exec(text) : null;
  if (format === null) return found;
  const position = [...text.slice(0, format.index)].length + 1;
  return found !== undefined && found.position < position ? found : { char: format[0], position };
}

function firstRefused(text: string): FoundUnsafeChar | undefined {
  if (!UNSAFE_ONE.test(text)) return undefined;
  for (const m of text.matchAll(UNSAFE_OR_FLAG_ALL)) {
    if (m[1] === undefined) return { char: m[0], position: [...text.slice(0, m.index)].length + 1 };
  }
  return undefined; // only the tags of subdivision flags
}

/** The first character of `text` that this module refuses (see its comment), or undefined ({@link findUnsafeChar} without the position). */
export function firstUnsafeChar(text: string): string | undefined {
  return findUnsafeChar(text)?.char;
}

/** True when `text` has a character this module refuses (not counting a subdivision flag's tags). */
export function hasUnsafeChars(text: string): boolean {
  return firstUnsafeChar(text) !== undefined;
}

/** `text` without the characters this module refuses (everything else, subdivision flags too, kept as is). */
export function stripUnsafeChars(text: string): string {
  return text.replace(UNSAFE_OR_FLAG_ALL, (m, flag: string | undefined) => flag ?? '');
}

/**
 * One unsafe character for a message: `U+202E (a bidirectional control)`,
 * `U+0001 (a control character)`, `U+2028 (a line or paragraph separator)`,
 * `U+200B (an invisible character)` (U+200C and U+200D too), `U+FE0F (a variation selector not
 * after a character it applies to)` — a variation selector is only ever unsafe where
 * {@link firstUnsafeChar} found it — or, for another format character refused with
 * {@link UnsafeCharOptions.formatChars}, `U+0600 (a format character)`.
 */
export function describeUnsafeChar(ch: string): string {
  const kind = BIDI_ONE.test(ch)
    ? 'a bidirectional control'
    : SEPARATOR_ONE.test(ch)
      ? 'a line or paragraph separator'
      : INVISIBLE_ONE.test(ch)
        ? 'an invisible character'
        : SELECTOR_ONE.test(ch)
          ? 'a variation selector not after a character it applies to'
          : JOINER_ONE.test(ch)
            ? 'an invisible character'
            : FORMAT_ONE.test(ch)
              ? 'a format character'
              : 'a control character';
  return `U+${hex4(ch)} (${kind})`;
}

/**
 * `ch` (one code point) as `\uXXXX` escapes, upper-case hex: one for a character of the Basic
 * Multilingual Plane (`\u202E`), its two UTF-16 halves for one beyond it (U+E0041, a tag
 * character: `\uDB40\uDC41`) — the escapes JSON and JavaScript read back (ECMA-404 §9).
 */
export function escapeChar(ch: string): string {
  let out = '';
  for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0')}`;
  return out;
}

/**
 * `text` with each character this module refuses written as `\uXXXX`
 * ({@link escapeChar}; a tag character as its two UTF-16 escapes), everything else (a subdivision flag too) kept, for
 * echoing a client's value in a message without it acting on the reader's display.
 */
export function escapeUnsafeChars(text: string): string {
  return text.replace(UNSAFE_OR_FLAG_ALL, (m, flag: string | undefined) => flag ?? escapeChar(m));
}

/**
 * `value` with {@link escapeUnsafeChars} applied to every string in it (object keys and values,
 * array items, at any depth); other values as they are. For echoing a client's JSON value in
 * error details.
 */
export function escapeUnsafeCharsDeep(value: unknown): unknown {
  if (typeof value === 'string') return escapeUnsafeChars(value);
  if (Array.isArray(value)) return value.map(escapeUnsafeCharsDeep);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [escapeUnsafeChars(k), escapeUnsafeCharsDeep(v)]));
  }
  return value;
}

/** `text` with every non-ASCII character written as a `\uXXXX` escape too (after {@link escapeUnsafeChars}), for echoing a value that can only be ASCII, so a look-alike (`\u212A`, the Kelvin sign, for K) shows. */
export function escapeNonAscii(text: string): string {
  return escapeUnsafeChars(text).replace(/[^\x00-\x7F]/gu, escapeChar);
}

/**
 * `found` for a message: `U+202E (a bidirectional control), found at character 5`
 * ({@link describeUnsafeChar}, then its 1-based position in code points).
 */
export function describeFoundUnsafeChar(found: FoundUnsafeChar): string {
  return `${describeUnsafeChar(found.char)}, found at character ${found.position}`;
}

/**
 * Why `text` cannot be a name for a character this module refuses in it, or undefined: a phrase
 * that follows the field, naming the first such character and where it is, then what is not
 * allowed in a few words ({@link UNSAFE_CHAR_KINDS}), ending with what to send —
 * `must not contain U+202E (a bidirectional control), found at character 5: no control
 * characters, line or paragraph separators, invisible characters or bidirectional controls are
 * allowed; <send>`. With `options.formatChars` a format character is refused too
 * ({@link UnsafeCharOptions}) and the kinds are {@link FORMAT_CHAR_KINDS}.
 */
export function unsafeCharProblem(text: string, send: string, options: UnsafeCharOptions = {}): string | undefined {
  const found = findUnsafeChar(text, options);
  const kinds = options.formatChars ? FORMAT_CHAR_KINDS : UNSAFE_CHAR_KINDS;
  return found === undefined ? undefined : `must not contain ${describeFoundUnsafeChar(found)}: no ${kinds} are allowed; ${send}`;
}

/**
 * The noncharacters (Unicode Standard §23.7, "Noncharacters"): U+FDD0–U+FDEF and the last two code
 * points of every plane, U+FFFE, U+FFFF, U+1FFFE, U+1FFFF, … U+10FFFE, U+10FFFF.
 */
const NONCHARACTER = `\\uFDD0-\\uFDEF${Array.from({ length: 17 }, (_, plane) => `\\u{${(plane * 0x10000 + 0xfffe).toString(16)}}\\u{${(plane * 0x10000 + 0xffff).toString(16)}}`).join('')}`;
/**
 * A character a name cannot show by itself: a private-use character (`\p{Co}`: U+E000–U+F8FF and
 * planes 15–16, U+F0000–U+FFFFD and U+100000–U+10FFFD; its glyph, if any, comes from a font
 * private to someone) or a noncharacter ({@link NONCHARACTER}: never text to interchange).
 */
const NO_SHARED_GLYPH = new RegExp(`[\\p{Co}${NONCHARACTER}]`, 'u');
const NO_SHARED_GLYPH_ALL = new RegExp(NO_SHARED_GLYPH.source, 'gu');

/**
 * Why `text` cannot be a name for having no visible character, or undefined: a phrase that follows
 * the field, naming the first character that is not whitespace and ending with what to send. Text
 * that {@link hasText} finds nothing in is `must have a visible character, not only whitespace or
 * invisible characters (found U+3164): <send>`; text whose only other characters are private-use
 * characters or noncharacters ({@link NO_SHARED_GLYPH}) is `must have a visible character, not
 * only private-use characters or noncharacters, which show as nothing or as empty boxes (found
 * U+E000): <send>`. A name with one visible character besides them is fine.
 */
export function noVisibleCharProblem(text: string, send: string): string | undefined {
  if (!hasText(text)) {
    const first = /\S/u.exec(text)?.[0];
    return `must have a visible character, not only whitespace or invisible characters${first === undefined ? '' : ` (found U+${hex4(first)})`}: ${send}`;
  }
  if (hasText(text.replace(NO_SHARED_GLYPH_ALL, ''))) return undefined;
  const first = NO_SHARED_GLYPH.exec(text)![0];
  return `must have a visible character, not only private-use characters or noncharacters, which show as nothing or as empty boxes (found U+${hex4(first)}): ${send}`;
}

/**
 * `text` quoted for a message: in double quotes, `"` and `\` escaped with a backslash, and every
 * character this module refuses written as a `\uXXXX` escape (a line break too:
 * `\u000A`, as {@link escapeUnsafeChars} writes it in details), so an echoed value is unambiguous
 * and cannot act on the reader's display. E.g. `a"b<U+202E>c` → `"a\"b\u202Ec"`.
 */
export function quoteForDisplay(text: string): string {
  return `"${escapeUnsafeChars(text.replace(/["\\]/g, '\\$&'))}"`;
}

/** How {@link settingForDisplay} shows a value. */
export interface SettingDisplayOptions {
  /**
   * Show at most this many characters of a value it quotes ({@link quoteForDisplayClipped}: its
   * start, then `… (N characters)`); unset: the whole value. A value shown as given is never cut.
   */
  clip?: number;
}

/**
 * A setting's value as a one-line message shows it — a path in a `refusing to start:` line
 * (DATA_DIR, SKILLS_DIR, SKILL_SECRETS), a variable's value in the configuration report
 * (src/config.ts, with `clip`): as given when it has no character {@link escapeUnsafeChars}
 * escapes and no format character (`\p{Cf}`: U+200D, which MODEL refuses, too), else in
 * {@link quoteForDisplay}'s quotes with those characters as `\uXXXX` (whole, or its first
 * `options.clip` characters: {@link SettingDisplayOptions}), so a line break or a terminal escape
 * in it cannot start a new log line or act on the reader's display:
 * `/data` → `/data`, `/nope<U+202E>ab` → `"/nope\u202Eab"`, `/proc/x<LF>y` → `"/proc/x\u000Ay"`,
 * `gpt<U+200D>4o` → `"gpt\u200D4o"`.
 */
export function settingForDisplay(value: string, options: SettingDisplayOptions = {}): string {
  if (escapeUnsafeChars(value) === value && !FORMAT_ONE.test(value)) return value;
  const quoted = options.clip === undefined ? quoteForDisplay(value) : quoteForDisplayClipped(value, options.clip);
  return quoted.replace(FORMAT_ALL, escapeChar);
}

/**
 * A setting's value for a structured log field (a JSON string, which needs no quotes of its own):
 * the characters {@link settingForDisplay} escapes — those {@link escapeUnsafeChars} escapes and
 * format characters — as `\uXXXX`, nothing else changed and no quotes added: `/data` → `/data`,
 * `/tmp/nc-<LF>d5` → `/tmp/nc-\u000Ad5`, `gpt<U+200D>4o` → `gpt\u200D4o`.
 */
export function settingForField(value: string): string {
  return escapeUnsafeChars(value).replace(FORMAT_ALL, escapeChar);
}

/** The most characters of a client's value {@link quoteForDisplayClipped} shows. */
export const MAX_QUOTED_CHARS = 80;

/**
 * {@link quoteForDisplay} of at most `maxChars` characters of `text` (cut on a grapheme boundary):
 * a longer value is shown by its start, with how long it is after the closing quote —
 * `"aaaa…aaaa"… (300 characters)` — so a refusal that echoes a value stays short whatever was sent.
 */
export function quoteForDisplayClipped(text: string, maxChars = MAX_QUOTED_CHARS): string {
  if (text.length <= maxChars) return quoteForDisplay(text);
  return `${quoteForDisplay(keepHead(text, maxChars))}… (${text.length} characters)`;
}

/**
 * `text` for a refusal's details: {@link escapeUnsafeChars} applied, and one over `maxChars`
 * characters (default {@link MAX_QUOTED_CHARS}) shown by its start and its length —
 * `aaaa…… (12000 characters)` — unquoted, as {@link quoteForDisplayClipped} shows it in the message.
 */
export function escapeUnsafeCharsClipped(text: string, maxChars = MAX_QUOTED_CHARS): string {
  if (text.length <= maxChars) return escapeUnsafeChars(text);
  return `${escapeUnsafeChars(keepHead(text, maxChars))}… (${text.length} characters)`;
}

/** The most names {@link namesForDisplay} lists; the rest are counted. */
export const MAX_LISTED_NAMES = 5;
/** The most characters of one name {@link namesForDisplay} shows. */
export const MAX_LISTED_NAME_CHARS = 64;

/**
 * Names a client or the model gave (tool names of calls, …) for a message, bounded whatever was
 * sent: the first {@link MAX_LISTED_NAMES} distinct ones, each {@link quoteForDisplayClipped} to
 * {@link MAX_LISTED_NAME_CHARS} characters, joined with `, `, then `and N more` —
 * `"todo", "web_search" and 3 more`. Empty for no names.
 */
export function namesForDisplay(names: readonly string[]): string {
  const distinct = [...new Set(names)];
  const shown = distinct.slice(0, MAX_LISTED_NAMES).map((n) => quoteForDisplayClipped(n, MAX_LISTED_NAME_CHARS));
  const more = distinct.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

/** The code point of `ch` as 4+ upper-case hex digits (`202E`). */
export function hex4(ch: string): string {
  return ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * Characters that carry no text for the model: Unicode whitespace (`\s`), control characters
 * (`\p{Cc}`: NUL, BEL, ESC, DEL, U+0085, …), invisible format characters (`\p{Cf}`: U+200B
 * zero-width space, U+2060 word joiner, U+FEFF, …), combining marks with nothing to combine with
 * (`\p{M}` alone), and the blank letters that render as nothing: the Hangul fillers (U+115F,
 * U+1160, U+3164, U+FFA0) and the blank Braille pattern U+2800.
 */
const NOT_TEXT = /^[\s\p{Cc}\p{Cf}\p{M}\u115F\u1160\u3164\uFFA0\u2800]*$/u;

/**
 * True when `text` has a character the model can read: one that is not whitespace, a control
 * character or an invisible format character ({@link NOT_TEXT}). `"\u0000"`, `"\u0007\u001b"`
 * and `"\u200b "` have none.
 */
export function hasText(text: string): boolean {
  return !NOT_TEXT.test(text);
}
