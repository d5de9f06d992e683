/**
 * Text a model provider sent in an error (an HTTP error body, an error inside the stream, a failed
 * response's message), made fit to become a turn's error: it is stored, streamed, logged and sent
 * in webhooks, so it must neither carry a secret of this service nor be of any size.
 * - {@link describeHtmlBody}: an HTML page (a proxy's or web server's error page, known by its
 *   `Content-Type` or its first tag) is summarized — its size and title (or first heading / first
 *   words) — instead of kept as markup; both adapters use it on their HTTP errors ({@link providerErrorText}).
 * - {@link scrubSecrets}: every configured secret value is replaced by `[redacted:<VARIABLE>]`,
 *   also when echoed in part (`sk-abc*****xyz`, `sk-test-…-key`: a run starting with the first 6
 *   characters of a secret of 10+ characters), percent-encoded (`%2F`, `%2b`), JSON-escaped
 *   (`sk\u002d…`; either of these also in a masked echo) or base64-encoded (a proxy's
 *   `Authorization: Basic base64("user:" + key)` echoed back, also cut short or wrapped across lines).
 * - {@link boundText}: at most {@link PROVIDER_TEXT_MAX_CHARS} characters, the start kept, with
 *   `… [truncated N characters]`.
 * src/model/clean-errors.ts applies the last two to every error a model port reports, scanning
 * only the start of a huge text ({@link scanWindow}).
 */
import { redactSecrets } from '../skills/secrets.js';
import { htmlToPlainText } from '../tools/web/extract.js';
import { clip, keepHead } from '../runtime/text-cut.js';
import { escapeRegExp } from '../regexp-escape.js';

/** A secret value the service knows, named by the setting it comes from (e.g. `OPENAI_API_KEY`). */
export interface SecretValue {
  name: string;
  value: string;
}

/** Most characters of provider text kept in an error message (UTF-16 units; the marker comes on top). */
export const PROVIDER_TEXT_MAX_CHARS = 4000;

/** Values shorter than this are not treated as secrets (an `OPENAI_API_KEY=EMPTY` of a local server). */
export const MIN_SECRET_CHARS = 6;

/** How many leading characters of a secret mark an echo of it, for secrets of 10+ characters. */
const ECHO_PREFIX_CHARS = 6;
const ECHO_MIN_SECRET_CHARS = 10;

/**
 * `text` with every secret value replaced by `[redacted:<name>]` (redactSecrets of
 * src/skills/secrets.ts: longest first, so a value that contains another is replaced whole), then every run of non-space characters (quotes, brackets,
 * commas and semicolons end it; a final `.`, `:`, `!` or `?` stays outside) that starts with the
 * first 6 characters of a secret of 10+ characters — the masked or shortened echoes providers
 * write, e.g. `sk-pro********************wxyz`. A value or such an echo written percent-encoded
 * (`%2F`, `%2b`, …: a proxy echoing its request URL) or with JSON `\uXXXX` escapes (`sk\u002d…`: a
 * JSON body quoted as text) is redacted too ({@link scrubEncoded}, {@link scrubEncodedEchoes}). Base64 and
 * base64url encodings of a secret, also inside a longer encoded text (`Basic dXNlcjpzay1…`), cut
 * short after its first 12 bytes, wrapped across lines or written with `\/`, `%2F`, are redacted
 * too ({@link scrubBase64}). A secret of 10+ characters echoed in another letter case
 * (`SK-PROJ-ABC…`) or as the hex of its bytes (`736b2d70…`, either case) is redacted too
 * ({@link scrubOtherCaseAndHex}).
 * Values shorter than {@link MIN_SECRET_CHARS} are left alone. Pure.
 * @returns the text, unchanged when it holds no secret.
 */
export function scrubSecrets(text: string, secrets: readonly SecretValue[]): string {
  if (text === '' || secrets.length === 0) return text;
  const usable = secrets.filter((s) => s.value.length >= MIN_SECRET_CHARS);
  let out = redactSecrets(text, usable.map((s) => [s.name, s.value] as const));
  out = scrubEncoded(out, usable);
  out = scrubBase64(out, usable);
  out = scrubOtherCaseAndHex(out, usable);
  for (const s of usable) {
    if (s.value.length < ECHO_MIN_SECRET_CHARS) continue;
    const prefix = s.value.slice(0, ECHO_PREFIX_CHARS);
    if (!out.includes(prefix)) continue;
    out = out.replace(new RegExp(`${escapeRegExp(prefix)}[^\\s"'<>()[\\]{},;]*`, 'g'), (run) => {
      const tail = /[.:!?]+$/.exec(run)?.[0] ?? '';
      return `[redacted:${s.name}]${tail}`;
    });
  }
  return scrubEncodedEchoes(out, usable);
}

/**
 * `text` with every secret of {@link ECHO_MIN_SECRET_CHARS}+ characters that it holds in another
 * letter case (`SK-SECRETKEY…` for `sk-SecretKey…`), or as the hex of its UTF-8 bytes in either
 * case (`736b2d…`, `736B2D…`), replaced by `[redacted:<name>]`, longer needles first. Compared with
 * ASCII letters lower-cased on both sides (the text keeps its length, so positions carry over;
 * other letters compare as they are). Linear in the text per needle.
 */
function scrubOtherCaseAndHex(text: string, secrets: readonly SecretValue[]): string {
  const wanted = secrets.filter((s) => s.value.length >= ECHO_MIN_SECRET_CHARS);
  if (wanted.length === 0) return text;
  const needles = wanted.flatMap((s) => [
    { name: s.name, needle: asciiLower(s.value) },
    { name: s.name, needle: Buffer.from(s.value, 'utf8').toString('hex') },
  ]);
  return redactHits(text, findNeedles(asciiLower(text), needles));
}

/** `text` with its ASCII letters A–Z lower-cased, everything else as it is (same length). */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (run) => run.toLowerCase());
}

/** A place in a text to redact: `[start, end)` and the variable it names. */
interface Hit {
  start: number;
  end: number;
  name: string;
}

/**
 * Where `needles` occur in `haystack`, longer needles first, none overlapping one found before
 * (positions are `haystack`'s; `at` maps them to the text's, default as they are). Linear in
 * `haystack` per needle.
 */
function findNeedles(haystack: string, needles: readonly { name: string; needle: string }[], at: (i: number) => number = (i) => i): Hit[] {
  const hits: Hit[] = [];
  const taken = new Uint8Array(haystack.length);
  for (const { name, needle } of [...needles].sort((a, b) => b.needle.length - a.needle.length)) {
    for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) {
      if (taken[i] || taken[i + needle.length - 1]) continue;
      taken.fill(1, i, i + needle.length);
      hits.push({ start: at(i), end: at(i + needle.length), name });
    }
  }
  return hits;
}

/** `text` with each of `hits` (not overlapping) replaced by `[redacted:<name>]`; unchanged without any. */
function redactHits(text: string, hits: Hit[]): string {
  if (hits.length === 0) return text;
  hits.sort((a, b) => a.start - b.start);
  let out = '';
  let last = 0;
  for (const h of hits) {
    out += `${text.slice(last, h.start)}[redacted:${h.name}]`;
    last = h.end;
  }
  return out + text.slice(last);
}

/** True for the character code of an ASCII hex digit (either case). */
function isHexCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** The code of the four hex digits at `text[i]…text[i + 3]`, or -1 when they are not four hex digits. */
function hex4At(text: string, i: number): number {
  if (i + 4 > text.length) return -1;
  for (let k = i; k < i + 4; k++) if (!isHexCode(text.charCodeAt(k))) return -1;
  return parseInt(text.slice(i, i + 4), 16);
}

/**
 * The escape at `text[i]` that {@link decodedView} reads as what it encodes, as `[bytes, characters
 * of text it takes]`: `%XX` (URL encoding, RFC 3986 section 2.1: one byte, hex digits of either
 * case), `\uXXXX` (a JSON escape, RFC 8259 section 7: the UTF-8 of that character; a surrogate pair
 * written as two escapes is one character) and `\/` (JSON's escaped `/`). Undefined for anything else.
 */
function escapeAt(text: string, i: number): [number[], number] | undefined {
  const c = text.charCodeAt(i);
  if (c === 37 && i + 2 < text.length && isHexCode(text.charCodeAt(i + 1)) && isHexCode(text.charCodeAt(i + 2))) return [[parseInt(text.slice(i + 1, i + 3), 16)], 3];
  if (c !== 92) return undefined;
  if (text[i + 1] === '/') return [[47], 2];
  if (text[i + 1] !== 'u') return undefined;
  const unit = hex4At(text, i + 2);
  if (unit < 0) return undefined;
  if (unit >= 0xd800 && unit <= 0xdbff && text[i + 6] === '\\' && text[i + 7] === 'u') {
    const low = hex4At(text, i + 8);
    if (low >= 0xdc00 && low <= 0xdfff) return [[...Buffer.from(String.fromCharCode(unit, low), 'utf8')], 12];
  }
  return [[...Buffer.from(String.fromCharCode(unit), 'utf8')], 6];
}

/** True when `text` may hold an escape {@link escapeAt} reads (a `%` or a `\`). */
function mayHoldEscapes(text: string): boolean {
  return text.includes('%') || text.includes('\\');
}

/**
 * `text` read as the UTF-8 bytes it stands for, every escape of {@link escapeAt} taken as what it
 * encodes: `view` holds the bytes (one latin1 character per byte), `from[k]` the index in `text`
 * where byte k came from (`from[view.length]` is `text.length`). One pass, linear in the text.
 */
function decodedView(text: string): { view: string; from: number[] } {
  const bytes: number[] = [];
  const from: number[] = [];
  for (let i = 0; i < text.length; ) {
    const escape = escapeAt(text, i);
    if (escape) {
      for (const b of escape[0]) {
        bytes.push(b);
        from.push(i);
      }
      i += escape[1];
      continue;
    }
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const utf8 = cp < 0x80 ? [cp] : [...Buffer.from(String.fromCodePoint(cp), 'utf8')];
    for (const b of utf8) {
      bytes.push(b);
      from.push(i);
    }
    i += width;
  }
  from.push(text.length);
  return { view: Buffer.from(bytes).toString('latin1'), from };
}

/** `value`'s UTF-8 bytes as a {@link decodedView} writes them (one latin1 character per byte). */
function viewOf(value: string): string {
  return Buffer.from(value, 'utf8').toString('latin1');
}

/**
 * `text` with every secret value written with escapes in part or whole — percent-encoded
 * (`sk-a%2Fb%2Bc%3D`, `sk-a%2fb`, `%C3%BC` for a non-ASCII character: a proxy echoing its request
 * URL) or JSON-escaped (`sk\u002dabc`, `\u0073\u006b…`, `a\/b`: a JSON body quoted as text) —
 * replaced by `[redacted:<name>]`, longest values first. Compared on bytes ({@link decodedView}):
 * each value's UTF-8 bytes are searched in the text's (`indexOf`), and a match is replaced in
 * `text` from the first to the last character it came from. Linear in the text (one pass, then a
 * substring search per value). Unchanged without a `%` or `\`.
 */
function scrubEncoded(text: string, secrets: readonly SecretValue[]): string {
  if (!mayHoldEscapes(text) || secrets.length === 0) return text;
  const { view, from } = decodedView(text);
  const needles = secrets.map((s) => ({ name: s.name, needle: viewOf(s.value) }));
  return redactHits(text, findNeedles(view, needles, (k) => from[k]));
}

/** Characters that end the run of a masked echo (as in {@link scrubSecrets}: white space, quotes, brackets, commas, semicolons). */
const ECHO_RUN_END = /[\s"'<>()[\]{},;]/;

/**
 * `text` with every masked or shortened echo of a secret of {@link ECHO_MIN_SECRET_CHARS}+
 * characters whose first {@link ECHO_PREFIX_CHARS} characters are written with escapes
 * ({@link escapeAt}: `sk-ab%2Fcd****` for `sk-ab/cd…`, `sk\u002dproj****`) replaced by
 * `[redacted:<name>]`: the prefix is found in the decoded bytes ({@link decodedView}), and the
 * run goes on in `text` from its end up to white space, a quote, a bracket, a comma or a
 * semicolon, a final `.`, `:`, `!` or `?` left outside — the run {@link scrubSecrets} redacts
 * for an echo written plainly (that pass runs first; this one finds only escaped ones). Linear
 * in the text per secret. Unchanged without a `%` or `\`.
 */
function scrubEncodedEchoes(text: string, secrets: readonly SecretValue[]): string {
  const wanted = secrets.filter((s) => s.value.length >= ECHO_MIN_SECRET_CHARS);
  if (wanted.length === 0 || !mayHoldEscapes(text)) return text;
  const { view, from } = decodedView(text);
  const needles = wanted.map((s) => ({ name: s.name, needle: viewOf(s.value.slice(0, ECHO_PREFIX_CHARS)) }));
  const hits: Hit[] = [];
  for (const hit of findNeedles(view, needles, (k) => from[k]).sort((a, b) => a.start - b.start)) {
    if (hits.length > 0 && hit.start < hits[hits.length - 1].end) continue; // inside the run of one before
    let end = hit.end;
    while (end < text.length && !ECHO_RUN_END.test(text[end])) end++;
    while (end > hit.end && '.:!?'.includes(text[end - 1])) end--;
    hits.push({ ...hit, end });
  }
  return redactHits(text, hits);
}

/** Fewest characters of a secret's base64 that {@link scrubBase64} looks for (shorter ones could match by chance). */
export const MIN_BASE64_CORE_CHARS = 16;

/**
 * The parts of the base64 (`+/`) and base64url (`-_`) encodings of `value` (UTF-8) that are the
 * same wherever the value sits in the encoded bytes. Base64 encodes 3 bytes as 4 characters, so
 * the characters for `value` depend on its byte offset mod 3 and on the bytes around it: for each
 * offset (0, 1 or 2 bytes before it in its group) the characters that hold bits of the bytes
 * before (the first 0, 2 or 3) and of the bytes after (the last partial group) are left out.
 * Empty when a core would be shorter than {@link MIN_BASE64_CORE_CHARS} characters (a value of 12 bytes or less).
 */
export function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const cores: string[] = [];
  for (let lead = 0; lead < 3; lead++) {
    const encoded = Buffer.concat([Buffer.alloc(lead), bytes]).toString('base64');
    // Characters 6 bits each: skip those touching the `lead` bytes, keep those wholly inside `value`.
    const core = encoded.slice(Math.ceil((lead * 8) / 6), Math.floor(((lead + bytes.length) * 8) / 6));
    if (core.length < MIN_BASE64_CORE_CHARS) return [];
    cores.push(core);
  }
  const url = cores.map((c) => c.replace(/\+/g, '-').replace(/\//g, '_'));
  return [...new Set([...cores, ...url])];
}

/**
 * The first {@link MIN_BASE64_CORE_CHARS} characters of each {@link base64Cores} core of `value`:
 * what is left of its encoding in an echo cut short (`Basic dXNlcjpzay1wcm9q…`, an encoded
 * `user:key` shown to 40 characters). Each stands for the value's first 12 bytes at one of the
 * three byte offsets; empty when `value` has no cores.
 */
export function base64Prefixes(value: string): string[] {
  return [...new Set(base64Cores(value).map((core) => core.slice(0, MIN_BASE64_CORE_CHARS)))];
}

/** True for the character code of an ASCII letter or digit. */
function isAlnumCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/**
 * The base64/base64url character `text` holds at `i` as `[character, characters of text it
 * takes]`: a letter, digit, `+`, `/`, `-` or `_` as it is; `\/` (JSON's escaped `/`) and `%2B`,
 * `%2F` (either case: percent-encoded) as `+` and `/`. Undefined for anything else.
 */
function base64Char(text: string, i: number): [string, number] | undefined {
  const c = text.charCodeAt(i);
  if (isAlnumCode(c) || c === 43 || c === 47 || c === 45 || c === 95) return [text[i], 1];
  if (c === 92 && text[i + 1] === '/') return ['/', 2];
  if (c === 37 && text[i + 1] === '2') {
    const d = text[i + 2];
    if (d === 'B' || d === 'b') return ['+', 3];
    if (d === 'F' || d === 'f') return ['/', 3];
  }
  return undefined;
}

/** How many characters of `text` at `i` are base64 padding: 1 for `=`, 3 for `%3D` (either case), else 0. */
function paddingAt(text: string, i: number): number {
  if (text[i] === '=') return 1;
  return text[i] === '%' && text[i + 1] === '3' && (text[i + 2] === 'D' || text[i + 2] === 'd') ? 3 : 0;
}

/**
 * How many characters of `text` at `i` are a line break: `\r\n`, `\n`, `\r`, or the same written
 * as JSON escapes inside a string (`\\r\\n`, `\\n`, `\\r`); else 0.
 */
function lineBreakAt(text: string, i: number): number {
  const c = text[i];
  if (c === '\r') return text[i + 1] === '\n' ? 2 : 1;
  if (c === '\n') return 1;
  if (c !== '\\') return 0;
  if (text[i + 1] === 'n') return 2;
  if (text[i + 1] !== 'r') return 0;
  return text[i + 2] === '\\' && text[i + 3] === 'n' ? 4 : 2;
}

/** One run of base64 text found by {@link base64Runs}. */
interface Base64Run {
  /** Where it starts and ends in the text (UTF-16 indexes, end exclusive). */
  start: number;
  end: number;
  /** Its base64 characters, escapes decoded and line breaks left out. */
  chars: string;
}

/**
 * The runs of base64/base64url characters in `text` ({@link base64Char}, then any padding) of
 * {@link MIN_BASE64_CORE_CHARS}+ characters. A run goes on across a line break (wrapped base64,
 * as MIME and PEM write it at 64 or 76 characters) when the part before the break has
 * {@link MIN_BASE64_CORE_CHARS}+ characters and no padding, and the line after it holds base64
 * only, up to the next break, a quote or the end of the text — so the words of a next line of
 * prose are not taken in. Linear: every character is read at most twice.
 */
function base64Runs(text: string): Base64Run[] {
  const runs: Base64Run[] = [];
  let i = 0;
  while (i < text.length) {
    if (!base64Char(text, i)) {
      i += lineBreakAt(text, i) || 1; // a JSON `\n` is skipped whole: its `n` starts no run
      continue;
    }
    const start = i;
    let chars = '';
    for (;;) {
      let part = 0;
      for (let u = base64Char(text, i); u; u = base64Char(text, i)) {
        chars += u[0];
        i += u[1];
        part++;
      }
      let padded = false;
      for (let p = paddingAt(text, i); p; p = paddingAt(text, i)) {
        chars += '=';
        i += p;
        padded = true;
      }
      const br = padded || part < MIN_BASE64_CORE_CHARS ? 0 : lineBreakAt(text, i);
      if (!br) break;
      // Does the next line hold base64 only? Read it ahead; the loop reads it again when it does.
      let j = i + br;
      let ahead = 0;
      for (let u = base64Char(text, j); u; u = base64Char(text, j)) [j, ahead] = [j + u[1], ahead + 1];
      for (let p = paddingAt(text, j); p; p = paddingAt(text, j)) j += p;
      const lineEnds = j === text.length || lineBreakAt(text, j) > 0 || text[j] === '"' || text[j] === "'";
      if (ahead === 0 || !lineEnds) break;
      i += br;
    }
    if (chars.length >= MIN_BASE64_CORE_CHARS) runs.push({ start, end: i, chars });
  }
  return runs;
}

/**
 * `text` with every run of base64/base64url text ({@link base64Runs}: JSON's `\/` and
 * percent-encoded `%2B`, `%2F`, `%3D` read as what they encode, wrapped lines joined) that holds
 * the encoding of a secret replaced whole by `[redacted:<name>]` (so `Basic dXNlcjpz…==` reads
 * `Basic [redacted:OPENAI_API_KEY]`, nothing of the encoding left). A run holds it when it holds a
 * {@link base64Cores} core of the secret, or, for an echo cut short, the first 16 characters of one
 * ({@link base64Prefixes}: the encoding of its first 12 bytes); whole cores are looked for first,
 * so a run holding two secrets' common start is named by the one it holds whole. Linear: one scan
 * for the runs, then a substring search of each core in each run.
 */
function scrubBase64(text: string, secrets: readonly SecretValue[]): string {
  const wanted = secrets.map((s) => ({ name: s.name, cores: base64Cores(s.value), prefixes: base64Prefixes(s.value) })).filter((s) => s.cores.length > 0);
  if (wanted.length === 0) return text;
  let out = '';
  let last = 0;
  for (const run of base64Runs(text)) {
    const hit =
      wanted.find((s) => s.cores.some((core) => run.chars.includes(core))) ??
      wanted.find((s) => s.prefixes.some((prefix) => run.chars.includes(prefix)));
    if (!hit) continue;
    out += `${text.slice(last, run.start)}[redacted:${hit.name}]`;
    last = run.end;
  }
  return last === 0 ? text : out + text.slice(last);
}

/**
 * `text` cut to its first `max` characters (on a character boundary) followed by
 * `… [truncated N characters]` (N: the characters left out), or unchanged when it fits.
 * @param cutBefore characters already cut from the end of `text` by the caller (see
 *   {@link scanWindow}): counted in N, and `text` gets the marker even when it fits.
 */
export function boundText(text: string, max = PROVIDER_TEXT_MAX_CHARS, cutBefore = 0): string {
  if (text.length <= max && cutBefore === 0) return text;
  const head = keepHead(text, max);
  return `${head}… [truncated ${text.length - head.length + cutBefore} characters]`;
}

/**
 * Most characters of a provider's text that are scanned for secrets ({@link scanWindow}): 16 times
 * what {@link boundText} keeps.
 */
export const SCAN_WINDOW_CHARS = 16 * PROVIDER_TEXT_MAX_CHARS;

/**
 * The start of `text` that is worth scanning for secrets: its first {@link SCAN_WINDOW_CHARS}
 * characters (on a character boundary), and how many were cut. The SDK reads an error body of any
 * size whole, and the scans of {@link scrubSecrets} take time and memory in proportion to the
 * text (a 10 MB message: about a second and 300 MB); only the first {@link PROVIDER_TEXT_MAX_CHARS}
 * characters of the cleaned text are kept, so the rest would be dropped anyway — unless secrets
 * redacted in the window shrink it below that, when less of the message is shown than it could be.
 */
export function scanWindow(text: string): { head: string; cut: number } {
  const head = keepHead(text, SCAN_WINDOW_CHARS);
  return { head, cut: text.length - head.length };
}

/**
 * Elements an HTML error page may start with when it has no `<html>` (nginx's `<center><h1>502 Bad
 * Gateway</h1></center>`, a bare `<title>`, a `<p>`): the document-level and common body elements
 * of the HTML standard (https://html.spec.whatwg.org/multipage/indices.html#elements-3), not
 * every element — `<a>` or `<b>` alone start plain text often enough.
 */
const HTML_ELEMENTS = [
  'html', 'head', 'body', 'title', 'meta', 'link', 'style', 'script', 'noscript', 'base',
  'center', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'div', 'span', 'pre', 'table', 'br', 'hr',
  'header', 'main', 'section', 'article', 'nav', 'footer', 'form', 'ul', 'ol', 'dl', 'img', 'font', 'iframe',
];
const HTML_OPENING = new RegExp(`^<(?:!doctype\\s+html|(?:${HTML_ELEMENTS.join('|')})(?=[\\s/>]))`, 'i');

/** Media types of an HTML answer, as a `Content-Type` header names them (parameters ignored). */
const HTML_MEDIA_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/**
 * True when the `Content-Type` header value `contentType` names an HTML media type (`text/html`,
 * `application/xhtml+xml`; parameters and case ignored; false for null or empty). Also the /readyz
 * model probe's test of a declared page (src/telemetry/model-probe.ts).
 */
export function isHtmlMediaType(contentType: string | null | undefined): boolean {
  return !!contentType && HTML_MEDIA_TYPES.has(contentType.split(';')[0].trim().toLowerCase());
}

/**
 * True when `body` starts (after white space, a byte order mark and comments, skipped with
 * `indexOf`: linear) with a doctype or a tag of one of {@link HTML_ELEMENTS}: an HTML page
 * whatever its `Content-Type` says (also the /readyz model probe's test, src/telemetry/model-probe.ts).
 */
export function looksLikeHtml(body: string): boolean {
  let i = 0;
  for (;;) {
    while (i < body.length && /\s/.test(body[i])) i++; // \s includes U+FEFF, the byte order mark
    if (!body.startsWith('<!--', i)) break;
    const end = body.indexOf('-->', i + 4);
    if (end < 0) return false;
    i = end + 3;
  }
  return HTML_OPENING.test(body.slice(i, i + 64));
}

/** Text of an HTML fragment on one line: {@link htmlToPlainText} (one linear scan), white space collapsed. */
function htmlText(html: string): string {
  return htmlToPlainText(html).replace(/\s+/g, ' ').trim();
}

/**
 * The inner HTML of the first element named one of `names` in `html` ('' when none is closed):
 * found with `indexOf` from the first opening tag — linear, unlike a lazy regex tried at every
 * opening tag of a hostile page.
 */
function firstElement(html: string, names: readonly string[]): string {
  const lower = html.toLowerCase();
  let best: { name: string; at: number } | undefined;
  for (const name of names) {
    const re = new RegExp(`<${name}\\b`, 'g');
    const m = re.exec(lower);
    if (m && (!best || m.index < best.at)) best = { name, at: m.index };
  }
  if (!best) return '';
  const open = lower.indexOf('>', best.at);
  const close = open < 0 ? -1 : lower.indexOf(`</${best.name}`, open + 1);
  return close < 0 ? '' : html.slice(open + 1, close);
}

/**
 * A summary of `body` when it is an HTML page, else undefined. It is one when `contentType` (the
 * answer's `Content-Type`, when known) is `text/html` or `application/xhtml+xml`, or when it
 * starts (after white space, a byte order mark and comments) with `<!doctype html>` or a tag of a
 * known HTML element (`<html>`, `<head>`, `<body>`, `<title>`, `<center>`, `<h1>`, `<p>`, …:
 * {@link HTML_ELEMENTS}). The summary: its size and its `<title>`, else its first `<h1>`–`<h3>`,
 * else the start of its text (each at most 200 characters), e.g.
 * `an HTML page of 5093 bytes, titled "502 Bad Gateway"` or
 * `an HTML page of 5093 bytes: "500 Internal Server Error xxxx…"`.
 */
export function describeHtmlBody(body: string, contentType?: string | null): string | undefined {
  if (!isHtmlMediaType(contentType) && !looksLikeHtml(body)) return undefined;
  const size = `an HTML page of ${Buffer.byteLength(body)} bytes`;
  const title = htmlText(firstElement(body, ['title']));
  if (title) return `${size}, titled ${JSON.stringify(clip(title, 200))}`;
  const heading = htmlText(firstElement(body, ['h1', 'h2', 'h3']));
  const text = heading || htmlText(body);
  return text ? `${size}: ${JSON.stringify(clip(text, 200))}` : size;
}

/** What the `openai` SDK's `APIError` holds of a provider's error answer, as {@link providerErrorText} reads it. */
export interface ProviderErrorLike {
  /** The HTTP status; undefined for an error sent inside a stream. */
  status?: number;
  /** The SDK's message: the body's `error.message`, else `<status> <body>` (`<status> status code (no body)` for none). */
  message: string;
  /** The JSON body's `error` (a body without that key whole); undefined when the body was not JSON. */
  error?: unknown;
  /** The answer's headers (its `Content-Type`). */
  headers?: Headers;
}

/** The SDK's message of an HTTP error without a body, after the status (openai core/error.ts `makeMessage`). */
const SDK_NO_BODY = 'status code (no body)';

/**
 * The message a JSON error body states, in the shapes servers send (the SDK hands over the body's
 * `error`, or the whole body when it has no `error` key — openai client.js `makeStatusError`):
 * `{"error": {"message": …}}` (OpenAI and most), `{"object": "error", "message": …}` (vLLM),
 * `{"detail": "Not Found"}` (FastAPI, e.g. vLLM's unknown routes), FastAPI's validation error
 * `{"detail": [{"loc": […], "msg": …}, …]}` (as {@link validationProblems} writes it), `{"error":
 * "…"}` (Hugging Face TGI). Undefined when it states none as a non-empty string.
 */
function statedMessage(error: unknown): string | undefined {
  if (typeof error === 'string') return error || undefined;
  const e = error as { message?: unknown; detail?: unknown } | undefined;
  if (typeof e?.message === 'string' && e.message) return e.message;
  if (typeof e?.detail === 'string' && e.detail) return e.detail;
  if (Array.isArray(e?.detail)) return validationProblems(e.detail);
  return undefined;
}

/**
 * What a provider error's `message` field says, as text: a non-empty string as it came; another
 * value but null (an object such as `{"text": "…"}`, a list, a number) as its JSON — as the openai
 * SDK writes a non-string message into an HTTP error's (core/error.ts `makeMessage`); undefined
 * when it has none (absent, null or ''). Not bounded here: secrets are removed first and the text
 * is bounded after, as any provider text (clean-errors.ts `cleanErrorText`) — a cut made before
 * would split a secret that straddles it, and its first part would no longer match.
 */
export function messageFieldText(message: unknown): string | undefined {
  if (typeof message === 'string') return message || undefined;
  if (message === undefined || message === null) return undefined;
  try {
    return JSON.stringify(message);
  } catch {
    return String(message); // a BigInt or a cycle: never from JSON.parse, but said rather than thrown
  }
}

/** What an error's message reads when the provider's error states none: never its code, which the error carries already. */
export const NO_MESSAGE_TEXT = 'the error came without message text';

/** Most problems of a FastAPI validation error {@link validationProblems} lists; it counts the rest. */
export const MAX_VALIDATION_PROBLEMS = 10;

/**
 * A FastAPI validation error's `detail` list (HTTP 422: `[{"loc": ["body", "messages", 0,
 * "content"], "msg": "field required", "type": "value_error.missing"}, …]`, the shape of
 * pydantic's `ValidationError.errors()`; https://fastapi.tiangolo.com/tutorial/handling-errors/)
 * as readable text: `body.messages.0.content: field required; body.x: …`, each location at most
 * 200 characters and each message at most 300, the first {@link MAX_VALIDATION_PROBLEMS} problems
 * then `; and N more`. Entries without a string `msg` are left out; undefined when none has one
 * (the body is then shown as it came).
 */
function validationProblems(detail: readonly unknown[]): string | undefined {
  const problems: string[] = [];
  for (const entry of detail) {
    const { loc, msg } = (entry ?? {}) as { loc?: unknown; msg?: unknown };
    if (typeof msg !== 'string' || msg === '') continue;
    const where = Array.isArray(loc) ? loc.filter((part) => typeof part === 'string' || typeof part === 'number').join('.') : '';
    problems.push(where ? `${clip(where, 200)}: ${clip(msg, 300)}` : clip(msg, 300));
  }
  if (problems.length === 0) return undefined;
  const more = problems.length - MAX_VALIDATION_PROBLEMS;
  return problems.slice(0, MAX_VALIDATION_PROBLEMS).join('; ') + (more > 0 ? `; and ${more} more` : '');
}

/**
 * What a provider's error answer says, without the status (the caller names it): the message its
 * JSON body states ({@link statedMessage}: OpenAI's `error.message`, vLLM's top-level `message`,
 * FastAPI's `detail` — a string, or its list of validation problems as `body.x: field required` —,
 * TGI's string `error`); else the body as the SDK quoted it in its message
 * (`<status> <body>`, the status dropped) — an HTML page summarized ({@link describeHtmlBody},
 * which also reads the answer's `Content-Type` when the body was not JSON); '' for an answer
 * without a body. E.g. `Incorrect API key provided: …`, `an HTML page of 5093 bytes, titled "502
 * Bad Gateway"`, `Bad Gateway`.
 */
export function providerErrorText(err: ProviderErrorLike): string {
  const stated = statedMessage(err.error);
  if (stated) return describeHtmlBody(stated) ?? stated;
  const prefix = err.status !== undefined ? `${err.status} ` : '';
  const text = prefix && err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
  if (err.error === undefined && prefix && (text === SDK_NO_BODY || text.trim() === '')) return ''; // no body, or only white space
  return describeHtmlBody(text, err.error === undefined ? err.headers?.get('content-type') : undefined) ?? text;
}
