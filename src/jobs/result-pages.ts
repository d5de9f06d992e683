/**
 * Paging a job's result text by UTF-8 bytes: each segment holds at most {@link RESULT_PAGE_BYTES}
 * bytes and ends on a code point boundary (a UTF-8 sequence is never split), so the segments,
 * concatenated in order, are exactly the final text.
 */

export const RESULT_PAGE_BYTES = 8000;

export interface ResultPage {
  offset: number;
  output_text: string;
  /** Byte offset of the next segment, or null after the last. */
  next_offset: number | null;
}

/**
 * The segment of `text` starting at UTF-8 byte `offset`.
 * @throws Error (model-facing) when `offset` is past the end or not at a segment/character start.
 */
export function resultPage(text: string, offset: number, maxBytes = RESULT_PAGE_BYTES): ResultPage {
  const bytes = Buffer.from(text, 'utf8');
  if (offset > bytes.length) throw new Error(`result_offset ${offset} is past the end of the result (${bytes.length} bytes); start at 0`);
  if (offset < bytes.length && (bytes[offset] & 0xc0) === 0x80) throw new Error(`result_offset ${offset} is inside a character; use 0 or a next_offset you were given`);
  let end = Math.min(bytes.length, offset + maxBytes);
  while (end < bytes.length && (bytes[end] & 0xc0) === 0x80) end--;
  return { offset, output_text: bytes.subarray(offset, end).toString('utf8'), next_offset: end < bytes.length ? end : null };
}
