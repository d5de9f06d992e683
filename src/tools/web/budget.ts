/**
 * web_fetch's output budget: {@link FETCH_BUDGET_SHARE} of the call's output budget (40 000 of the
 * default 50 000 characters), shared by its URLs.
 * Short pages leave their unused share to longer ones ({@link allocateBudget}); a page over its share
 * keeps its head and tail around a marker ({@link clipHeadTail}) that says where the full text was
 * saved and which `read_file` offset (1-based line, as the computer family's read_file takes)
 * continues after the head.
 */
import { boundaryAtOrAfter, boundaryAtOrBefore } from '../../runtime/text-cut.js';

/**
 * Share of the call's output budget (TOOL_OUTPUT_MAX_CHARS) that page content gets, the rest is
 * for the per-page header lines and markers: 40 000 of the default 50 000 characters.
 */
export const FETCH_BUDGET_SHARE = 0.8;


/**
 * Split `total` characters among pages of the given lengths (water-filling: a page never gets more
 * than it needs; what it leaves is shared equally by the longer ones).
 * @returns one allowance per page, same order; their sum is ≤ `total`.
 */
export function allocateBudget(lengths: readonly number[], total: number): number[] {
  const out = new Array<number>(lengths.length).fill(0);
  const order = lengths.map((len, i) => ({ len, i })).sort((a, b) => a.len - b.len);
  let left = total;
  let remaining = order.length;
  for (const { len, i } of order) {
    const share = Math.floor(left / remaining);
    out[i] = Math.min(len, share);
    left -= out[i];
    remaining--;
  }
  return out;
}

/** What the marker needs to say about the omitted part. */
export interface OmittedPart {
  /** Characters left out. */
  omittedChars: number;
  /** 1-based line of the full text where the omitted part starts (the read_file offset). */
  fromLine: number;
}

/** Result of {@link clipHeadTail}. */
export interface ClippedText {
  text: string;
  /** Present when something was left out. */
  omitted?: OmittedPart;
}

function lineNumberAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * Keep `text` whole when it fits in `limit`, else about three quarters head and one quarter tail
 * (cut at line breaks when one is near) with `marker(omitted)` between them. The result is at most
 * `limit` characters when the marker is shorter than a tenth of `limit`.
 */
export function clipHeadTail(text: string, limit: number, marker: (omitted: OmittedPart) => string): ClippedText {
  if (text.length <= limit) return { text };
  // Size the marker with the largest numbers it can show, so the result stays within the limit.
  const markerRoom = marker({ omittedChars: text.length, fromLine: lineNumberAt(text, text.length) }).length;
  const room = Math.max(0, limit - markerRoom);
  let headEnd = Math.floor(room * 0.75);
  const nl = text.lastIndexOf('\n', headEnd);
  if (nl > headEnd * 0.8) headEnd = nl + 1;
  let tailStart = text.length - (room - headEnd);
  const nl2 = text.indexOf('\n', tailStart);
  if (nl2 !== -1 && nl2 - tailStart < (text.length - tailStart) * 0.2) tailStart = nl2 + 1;
  headEnd = boundaryAtOrBefore(text, headEnd);
  tailStart = boundaryAtOrAfter(text, tailStart);
  if (tailStart < headEnd) tailStart = headEnd;
  const omitted: OmittedPart = { omittedChars: tailStart - headEnd, fromLine: lineNumberAt(text, headEnd) };
  return { text: text.slice(0, headEnd).replace(/\n$/, '') + marker(omitted) + text.slice(tailStart), omitted };
}
