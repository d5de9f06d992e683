/**
 * The characters that show as nothing — whitespace, controls, format characters, combining marks
 * (variation selectors among them), blank letters — and every other character {@link UNSAFE_ALL}
 * escapes: no variation selector applies to one of them.
 */
const NO_BASE = String.raw`\s\p{Cc}\p{Cf}\p{M}\u115F\u1160\u3164\uFFA0\u2800\u2028\u2029\u00AD\u034F\u17B4\u17B5\u180B-\u180F\u200B\u2060-\u2065\u206A-\u206F\uFEFF\uFFF9-\uFFFB\u{13430}-\u{1343F}\u{1BCA0}-\u{1BCA3}\u{1D173}-\u{1D17A}\u{E0000}-\u{E007F}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069`;

/**
 * A variation selector not after a character it applies to (Unicode Standard §23.4, "Variation
 * Selectors"): text only as U+FE0E or U+FE0F after an emoji beyond ASCII ('❤️', '🏳️‍🌈'), U+FE0F
 * after a digit, '#' or '*' with U+20E3 next (a keycap, '1️⃣'; Unicode Technical Standard #51),
 * U+FE00–U+FE0D after a visible character beyond ASCII (a standardized variation sequence, '≤︀'),
 * U+E0100–U+E01EF after an ideograph (the Ideographic Variation Database, '葛󠄀'). Anywhere else —
 * after an ASCII letter ("adm<U+FE0F>in" reads "admin"), at the start, after white space or
 * another selector — it shows as nothing.
 */
const STRAY_SELECTOR = String.raw`(?!(?<=[^\x00-\x7F])(?<=\p{Emoji})[\uFE0E\uFE0F]|(?<=[0-9#*])\uFE0F(?=\u20E3)|(?<=[^\x00-\x7F${NO_BASE}])[\uFE00-\uFE0D]|(?<=[^${NO_BASE}])(?<=\p{Ideographic})[\u{E0100}-\u{E01EF}])[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]`;

/**
 * Text the console shows that came from a model or a client, made safe to read: every control
 * character (C0, DEL, C1), line and paragraph separator (U+2028, U+2029), invisible character
 * (U+00AD, U+034F, U+115F, U+1160, U+17B4, U+17B5, U+180B–U+180F, U+200B, U+2060–U+2065, U+206A–U+206F, U+3164, U+FEFF, U+FFA0, U+FFF9–U+FFFB, U+13430–U+1343F, U+1BCA0–U+1BCA3, U+1D173–U+1D17A, U+E0000–U+E007F outside a subdivision flag; a variation selector U+FE00–U+FE0F or U+E0100–U+E01EF not after a character it applies to, {@link STRAY_SELECTOR}) and bidirectional
 * control (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) written as a `\uXXXX` escape (a
 * tag character as its two UTF-16 escapes, except in the flags of England, Scotland and Wales: 🏴
 * U+1F3F4, the tags of "gbeng", "gbsct" or "gbwls", U+E007F) — the set, and the escapes, of the service's
 * src/unsafe-chars.ts (`escapeUnsafeChars`; the console is built apart from the service, and
 * test/console/display-text.test.ts checks the two agree on every code point). Without it a
 * U+202E inside a command's arguments shows the rest of the line reversed, so what a person
 * approves can read unlike what runs.
 */
const UNSAFE_ALL = new RegExp(
  String.raw`(\u{1F3F4}\u{E0067}\u{E0062}(?:\u{E0065}\u{E006E}\u{E0067}|\u{E0073}\u{E0063}\u{E0074}|\u{E0077}\u{E006C}\u{E0073})\u{E007F})|[\p{Cc}\u2028\u2029\u00AD\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B\u2060-\u2065\u206A-\u206F\u3164\uFEFF\uFFA0\uFFF9-\uFFFB\u{13430}-\u{1343F}\u{1BCA0}-\u{1BCA3}\u{1D173}-\u{1D17A}\u{E0000}-\u{E007F}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]|` +
    STRAY_SELECTOR,
  'gu',
);

/** `c` as `\uXXXX` escapes (upper-case hex): one per UTF-16 unit, so a tag character (U+E0041) is `\uDB40\uDC41`, as JSON writes it. */
const escape = (c: string) => c.replace(/[^]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);

/** `text` with each such character written as `\uXXXX` (upper-case hex), everything else kept. */
export function escapeUnsafeText(text: string): string {
  return text.replace(UNSAFE_ALL, (c, flag: string | undefined) => flag ?? escape(c));
}

/**
 * Model-written text of several lines as the console shows it (a `clarify` question): like
 * {@link escapeUnsafeText}, but line breaks (`\n`) and tabs are kept as layout — every other
 * control character (ESC, `\r`, NUL, …), separator, invisible character and bidi control is
 * written as `\uXXXX`. The service's provider-error cleaning keeps the same two.
 */
export function escapeUnsafeLines(text: string): string {
  return text.replace(/[^\n\t]+/g, escapeUnsafeText);
}

/**
 * A JSON value as the console shows it (e.g. a call's arguments): pretty-printed JSON (which
 * escapes C0 controls inside strings) with the other unsafe characters escaped too — still valid
 * JSON that parses back to the same value. Each string (key or value) is escaped as the text it
 * holds, so a variation selector at the start of a string is escaped although a `"` precedes it
 * in the JSON.
 */
export function displayJson(value: unknown): string {
  // Strings are the only place JSON.stringify's output holds text; the rest is its own layout.
  return JSON.stringify(value, null, 2).replace(/"(?:[^"\\]|\\.)*"/g, (token) => jsonString(JSON.parse(token) as string));
}

/** `text` as a JSON string literal: JSON's own escapes, and every character {@link escapeUnsafeText} escapes as `\uXXXX`. */
function jsonString(text: string): string {
  const json = (part: string) => JSON.stringify(part).slice(1, -1);
  let out = '';
  let last = 0;
  for (const m of text.matchAll(UNSAFE_ALL)) {
    const [c, flag] = m as unknown as [string, string | undefined];
    // JSON escapes C0 controls itself (\n, \t, \u0001); a subdivision flag is kept.
    out += json(text.slice(last, m.index)) + (flag !== undefined || c < ' ' ? json(c) : escape(c));
    last = m.index + c.length;
  }
  return `"${out}${json(text.slice(last))}"`;
}
