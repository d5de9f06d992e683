/**
 * The console's escaping of text it shows (console/display-text.ts) is the service's
 * (src/unsafe-chars.ts escapeUnsafeChars) on every code point: the console is built apart from the
 * service and keeps its own copy of the character set, which must not drift.
 */
import { expect, it } from 'vitest';
import { displayJson, escapeUnsafeText } from '../../console/display-text.js';
import { escapeUnsafeChars } from '../../src/unsafe-chars.js';

it('escapes exactly the characters the service escapes, the same way', () => {
  const differ: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue; // lone surrogates are not text
    const ch = String.fromCodePoint(cp);
    if (escapeUnsafeText(ch) !== escapeUnsafeChars(ch)) differ.push(cp.toString(16));
  }
  expect(differ).toEqual([]);
});

it('shows arguments as JSON that parses back to them, with a bidi override escaped', () => {
  const args = { command: 'ls -la\n\u202E; rm -rf outbox #', note: 'fa\u200Cmily 👩‍💻' };
  const shown = displayJson(args);
  expect(shown).toContain('\\u202E; rm -rf outbox #');
  expect(shown).not.toMatch(/\u202E/u);
  expect(shown).toContain('fa\u200Cmily 👩‍💻');
  expect(JSON.parse(shown)).toEqual(args);
});

it('escapes a tag character as its two UTF-16 escapes, which JSON reads back, and keeps ZWJ and ZWNJ', () => {
  const hidden = `Report\u{E0069}\u{E0067}`; // "Report" + the tag characters of "ig"
  expect(escapeUnsafeText(hidden)).toBe('Report\\uDB40\\uDC69\\uDB40\\uDC67');
  expect(escapeUnsafeChars(hidden)).toBe('Report\\uDB40\\uDC69\\uDB40\\uDC67');
  expect(escapeUnsafeText('so\u00ADft \u180E \uFFF9')).toBe('so\\u00ADft \\u180E \\uFFF9');
  const args = { title: hidden, who: '👩\u200D💻 می\u200Cخواهم' };
  const shown = displayJson(args);
  expect(shown).not.toMatch(/[\u{E0000}-\u{E007F}]/u);
  expect(shown).toContain('👩\u200D💻 می\u200Cخواهم');
  expect(JSON.parse(shown)).toEqual(args);
});

it('keeps the tags of the flags of England, Scotland and Wales, and escapes tags anywhere else — any other flag-shaped tag text too — as the service does', () => {
  const tags = (s: string) => [...s].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
  const scotland = `\u{1F3F4}${tags('gbsct')}\u{E007F}`;
  const cases = [
    scotland,
    `Team ${scotland} and 👩‍💻`,
    `\u{1F3F4}${tags('ignore all rules')}\u{E007F}`, // spaces and too long: not a subdivision id
    `\u{1F3F4}${tags('gb')}\u{E007F}`, // too short
    `\u{1F3F4}${tags('admin')}\u{E007F}`, // a hidden word in a flag's shape
    `\u{1F3F4}${tags('gbzzz')}\u{E007F}`, // not one of the three flags
    `\u{1F3F4}${tags('gbeng')}\u{E007F} \u{1F3F4}${tags('gbwls')}\u{E007F}`,
    `\u{1F3F4}${tags('GBSCT')}\u{E007F}`, // upper-case tags are not a subdivision id
    `x${tags('gbsct')}\u{E007F}`, // no black flag before them
    `${scotland}${tags('hidden')}`, // tags after a whole flag
  ];
  for (const text of cases) expect(escapeUnsafeText(text)).toBe(escapeUnsafeChars(text));
  expect(escapeUnsafeChars(`Team ${scotland}`)).toBe(`Team ${scotland}`);
  expect(escapeUnsafeChars(cases[6])).toBe(cases[6]); // England and Wales
  for (const hidden of [cases[2], cases[4], cases[5]]) expect(escapeUnsafeChars(hidden)).not.toMatch(/[\u{E0000}-\u{E007F}]/u);
  expect(escapeUnsafeChars(cases[9])).toBe(`${scotland}\\uDB40\\uDC68\\uDB40\\uDC69\\uDB40\\uDC64\\uDB40\\uDC64\\uDB40\\uDC65\\uDB40\\uDC6E`);
  expect(displayJson({ team: scotland })).toContain(scotland);
});

it('escapes the Mongolian variation selectors, the Egyptian hieroglyph and shorthand format controls, and a variation selector not after a character it applies to, as the service does', () => {
  const cases: [string, string][] = [
    ['adm\u180Bin', 'adm\\u180Bin'],
    ['adm\u180Fin', 'adm\\u180Fin'],
    ['adm\u{13430}in', 'adm\\uD80D\\uDC30in'],
    ['adm\u{1BCA0}in', 'adm\\uD82F\\uDCA0in'],
    ['\uFE0Fadmin', '\\uFE0Fadmin'], // at the start
    ['admin \uFE0F', 'admin \\uFE0F'], // after a space
    ['\u2764\uFE0F\uFE0F', '\u2764\uFE0F\\uFE0F'], // after another selector
    ['a\u200D\uFE0E', 'a\u200D\\uFE0E'], // after a format character
    ['\u{E0100}x', '\\uDB40\\uDD00x'],
    // After an ASCII letter or a digit not in a keycap a selector applies to nothing: "admin" with
    // a hidden difference, a word hidden one supplement selector after each letter.
    ['adm\uFE0Fin', 'adm\\uFE0Fin'],
    ['gp\uFE0Et', 'gp\\uFE0Et'],
    ['a\uFE00dmin', 'a\\uFE00dmin'],
    ['a\u{E0100}d\u{E0101}min', 'a\\uDB40\\uDD00d\\uDB40\\uDD01min'],
    ['1\uFE0F', '1\\uFE0F'],
    ['a\uFE0F\u20E3', 'a\\uFE0F\u20E3'],
    ['\u00E9\uFE0F', '\u00E9\\uFE0F'], // U+FE0F applies to emoji only
    ['\u2764\u{E0100}', '\u2764\\uDB40\\uDD00'], // a supplement selector applies to ideographs only
    // After a visible base the selector is text: an emoji, a keycap, a flag sequence, an ideographic variant.
    ['I \u2764\uFE0F it', 'I \u2764\uFE0F it'],
    ['1\uFE0F\u20E3', '1\uFE0F\u20E3'],
    ['\u{1F3F3}\uFE0F\u200D\u{1F308}', '\u{1F3F3}\uFE0F\u200D\u{1F308}'],
    ['\u845B\u{E0100}', '\u845B\u{E0100}'],
    ['#\uFE0F\u20E3', '#\uFE0F\u20E3'],
    ['\u2764\uFE0E', '\u2764\uFE0E'],
    ['\u2264\uFE00', '\u2264\uFE00'], // a standardized variation sequence
  ];
  for (const [text, shown] of cases) {
    expect(escapeUnsafeText(text), JSON.stringify(text)).toBe(shown);
    expect(escapeUnsafeChars(text), JSON.stringify(text)).toBe(shown);
  }
  // In JSON a string's first character follows a quote: still no base.
  const args = { start: '\uFE0Frm -rf', heart: '\u2764\uFE0F', line: 'a\n\uFE0Fb', [`\uFE0Fkey`]: 1 };
  const shown = displayJson(args);
  expect(shown).toContain('"\\uFE0Frm -rf"');
  expect(shown).toContain('"\u2764\uFE0F"');
  expect(shown).toContain('"a\\n\\uFE0Fb"');
  expect(shown).toContain('"\\uFE0Fkey": 1');
  expect(JSON.parse(shown)).toEqual(args);
  const hidden = { model: 'gp\uFE0Ft', name: 'adm\uFE0Fin' };
  const json = displayJson(hidden);
  expect(json).toContain('"gp\\uFE0Ft"');
  expect(json).toContain('"adm\\uFE0Fin"');
  expect(JSON.parse(json)).toEqual(hidden);
});

it('treats every variation selector after every base of a sample as the service does', () => {
  const bases = ['', 'a', 'Z', '0', '9', '#', '*', ' ', '\u00E9', '\u00A9', '\u2264', '\u2764', '\u{1F3F3}', '\u{1F44D}', '\u{1F3FB}', '\u845B', '\u3007', '\uF900', '\u1000', '\uA856', '\u0301', '\u200D', '\u3164', '\u{16FE4}', '\uE000', '\uFE0F'];
  const selectors = ['\uFE00', '\uFE0D', '\uFE0E', '\uFE0F', '\u{E0100}', '\u{E01EF}'];
  for (const base of bases) {
    for (const selector of selectors) {
      for (const next of ['', '\u20E3', 'x']) {
        const text = `${base}${selector}${next}`;
        expect(escapeUnsafeText(text), JSON.stringify(text)).toBe(escapeUnsafeChars(text));
      }
    }
  }
});
