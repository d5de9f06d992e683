/**
 * The one place text is cut for the model, events and stored copies: every cut lands on a
 * grapheme-cluster boundary (UAX #29, via `Intl.Segmenter`), so a character outside the Basic
 * Multilingual Plane is never split into a lone surrogate (which strict providers reject) and an
 * emoji sequence or a letter with combining marks is not torn apart. Lengths are UTF-16 code
 * units (JavaScript string length), the unit of every `*_CHARS` limit in the service; a cut may
 * keep a few units less than the limit, never more.
 *
 * The boundary search looks at most {@link WINDOW} units around the cut (linear in that, not in
 * the text); a cluster longer than that (e.g. hundreds of stacked combining marks) is cut on a
 * code-point boundary instead.
 */

const WINDOW = 64;
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** `index` moved back by one when it would split a surrogate pair. */
function codePointBoundary(text: string, index: number): number {
  return index > 0 && index < text.length && isLow(text.charCodeAt(index)) && isHigh(text.charCodeAt(index - 1)) ? index - 1 : index;
}

/**
 * The largest grapheme boundary ≤ `index` (0 and `text.length` are boundaries). Pure.
 * @param index a UTF-16 offset; clamped to [0, text.length].
 */
export function boundaryAtOrBefore(text: string, index: number): number {
  if (index >= text.length) return text.length;
  if (index <= 0) return 0;
  const start = Math.max(0, index - WINDOW);
  const end = Math.min(text.length, index + WINDOW);
  let best = -1;
  for (const { index: offset } of segmenter.segment(text.slice(start, end))) {
    const b = start + offset;
    if (b > index) break;
    // The window's first segment start is a real boundary only at the text start.
    if (offset > 0 || start === 0) best = b;
  }
  return best >= 0 ? best : codePointBoundary(text, index);
}

/** The smallest grapheme boundary ≥ `index`. Pure. */
export function boundaryAtOrAfter(text: string, index: number): number {
  if (index >= text.length) return text.length;
  if (index <= 0) return 0;
  const before = boundaryAtOrBefore(text, index);
  if (before === index) return index;
  const start = before;
  const end = Math.min(text.length, index + WINDOW);
  for (const { index: offset } of segmenter.segment(text.slice(start, end))) {
    const b = start + offset;
    if (b >= index) return b;
  }
  if (end === text.length) return text.length;
  // A cluster longer than the window: step past a split surrogate pair only.
  return codePointBoundary(text, index) === index ? index : index + 1;
}

/** The start of `text`, at most `maxChars` long, cut on a grapheme boundary. */
export function keepHead(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : text.slice(0, boundaryAtOrBefore(text, Math.max(0, maxChars)));
}

/** The end of `text`, at most `maxChars` long, cut on a grapheme boundary. */
export function keepTail(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : text.slice(boundaryAtOrAfter(text, text.length - Math.max(0, maxChars)));
}

/**
 * The longest end of `text` that fits `maxBytes` UTF-8 bytes, cut on a grapheme boundary (for
 * byte-limited payloads such as live output events).
 */
export function keepTailBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  // Each UTF-16 unit is at most 3 UTF-8 bytes, so the tail of maxBytes units holds the answer.
  let tail = keepTail(text, Math.max(0, maxBytes));
  while (tail !== '' && Buffer.byteLength(tail) > maxBytes) {
    const over = Buffer.byteLength(tail) - maxBytes;
    tail = tail.slice(boundaryAtOrAfter(tail, Math.max(1, Math.floor(over / 3))));
  }
  return tail;
}

/**
 * `text` cut to at most `maxChars` (the marker included) with `marker` appended when cut, e.g.
 * `clip(name, 60, '…')`. When the marker alone is longer than `maxChars`, the head is empty.
 */
export function clip(text: string, maxChars: number, marker = '…'): string {
  if (text.length <= maxChars) return text;
  return keepHead(text, Math.max(0, maxChars - marker.length)) + marker;
}

/**
 * How many Unicode code points `text` has: its UTF-16 length less one per surrogate pair (a lone
 * surrogate counts as one). The unit zod 4's string `min`/`max` checks count in, so `'😀'` is 1
 * (its `length` is 2); linear in the text, without building an array.
 */
export function codePointCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++, n++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}
