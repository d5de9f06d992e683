/**
 * Bounded line reading for `read_file`: the file is read in fixed-size chunks (1 MiB) from an open
 * descriptor, lines are split on `\n` (a `\r` before it is dropped, a BOM at the start too), and only
 * the lines of the requested window are decoded — each at most `maxLineChars` characters, the rest
 * of a longer line counted but never kept. Memory stays bounded whatever the file holds (a single
 * 600 MB line used to build one string past V8's maximum length and crash the service), and
 * reading stops after `maxScanBytes` (1 GiB; the total is then a lower bound).
 */
import type { FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { keepHead } from '../../runtime/text-cut.js';

/** One line of the window. */
export interface WindowLine {
  /** 1-based line number. */
  n: number;
  /** The line, at most `maxLineChars` characters. */
  text: string;
  /** Length of the whole line in UTF-16 characters (as JavaScript counts). */
  chars: number;
  /** True when reading stopped inside this line (`maxScanBytes`): `chars` is a lower bound. */
  atLeast?: boolean;
}

export interface LineWindowResult {
  lines: WindowLine[];
  /** Lines in the file (a trailing newline does not start another); a lower bound when not `complete`. */
  total: number;
  /** False when reading stopped after `maxScanBytes` before the end of the file. */
  complete: boolean;
}

export interface LineWindowOptions {
  /** First line, 1-based. */
  offset: number;
  /** Number of lines. */
  limit: number;
  maxLineChars: number;
  /** Bytes per read (default 1 MiB). */
  chunkBytes?: number;
  /** Stop reading after this many bytes (default 1 GiB), e.g. in a huge sparse file. */
  maxScanBytes?: number;
  signal?: AbortSignal;
}

/**
 * Read lines `offset … offset+limit-1` of the open file and count all lines.
 * @throws Error when `signal` aborts.
 */
export async function readLineWindow(handle: FileHandle, o: LineWindowOptions): Promise<LineWindowResult> {
  const chunk = Buffer.alloc(o.chunkBytes ?? 1024 * 1024);
  const last = o.offset + o.limit - 1;
  const lines: WindowLine[] = [];
  let lineNo = 1;
  let partial = false; // bytes seen after the last newline
  let decoder: StringDecoder | null = null;
  let text = '';
  let chars = 0;
  let endsWithCr = false;

  const take = (bytes: Buffer) => {
    decoder ??= new StringDecoder('utf8');
    const s = decoder.write(bytes);
    if (s === '') return;
    chars += s.length;
    endsWithCr = s.endsWith('\r');
    if (text.length <= o.maxLineChars) text += s.slice(0, o.maxLineChars + 1 - text.length);
  };
  const finish = (atLeast = false) => {
    if (decoder) {
      const s = decoder.end();
      chars += s.length;
      if (s !== '') endsWithCr = s.endsWith('\r');
      if (text.length <= o.maxLineChars) text += s.slice(0, o.maxLineChars + 1 - text.length);
    }
    if (endsWithCr) {
      chars--;
      if (text.length === chars + 1) text = text.slice(0, -1);
    }
    if (lineNo === 1 && text.startsWith('\uFEFF')) {
      text = text.slice(1);
      chars--;
    }
    lines.push(atLeast ? { n: lineNo, text: keepHead(text, o.maxLineChars), chars, atLeast } : { n: lineNo, text: keepHead(text, o.maxLineChars), chars });
    decoder = null;
    text = '';
    chars = 0;
    endsWithCr = false;
  };

  const maxScan = o.maxScanBytes ?? 1024 * 1024 * 1024;
  let complete = true;
  let pos = 0;
  for (;;) {
    if (o.signal?.aborted) throw new Error('read_file aborted');
    if (pos >= maxScan) {
      const probe = await handle.read(Buffer.alloc(1), 0, 1, pos);
      if (probe.bytesRead > 0) complete = false;
      break;
    }
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, pos);
    if (bytesRead === 0) break;
    pos += bytesRead;
    const data = chunk.subarray(0, bytesRead);
    let i = 0;
    while (i < data.length) {
      const nl = data.indexOf(10, i);
      const end = nl === -1 ? data.length : nl;
      const inWindow = lineNo >= o.offset && lineNo <= last;
      if (inWindow && end > i) take(data.subarray(i, end));
      if (nl === -1) {
        partial = true;
        break;
      }
      if (inWindow) finish();
      lineNo++;
      partial = false;
      i = nl + 1;
    }
  }
  if (partial && lineNo >= o.offset && lineNo <= last) finish(!complete);
  return { lines, total: partial ? lineNo : lineNo - 1, complete };
}
