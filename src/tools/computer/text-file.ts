/**
 * Text file helpers shared by the file tools: binary detection, BOM and line-ending handling,
 * and atomic-enough writes that keep a file's encoding details.
 */
import type { ResolvedPath } from './home.js';
import { MAX_WHOLE_FILE_BYTES, readFileInHome, writeFileInHome } from './home-fs.js';

const BOM = '\uFEFF';

/** Bytes inspected for binary detection. */
const SNIFF_BYTES = 8192;

/**
 * True when `buf` looks binary: a NUL byte in the first 8 KiB (the rule git and grep use), or
 * invalid UTF-8 there (a cut multi-byte character at the very end is tolerated).
 */
export function looksBinary(buf: Uint8Array): boolean {
  const head = buf.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: head.length < buf.length });
    return false;
  } catch {
    return true;
  }
}

/** A decoded text file, split into its encoding details and content. */
export interface TextFile {
  /** Content without BOM (line endings as in the file). */
  text: string;
  hasBom: boolean;
  /** True when the file's line breaks are CRLF (every `\n` preceded by `\r`, at least one). */
  crlf: boolean;
}

/** Decode bytes read from a file (caller has checked {@link looksBinary}). */
export function decodeText(buf: Buffer): TextFile {
  let text = buf.toString('utf8');
  const hasBom = text.startsWith(BOM);
  if (hasBom) text = text.slice(1);
  const lf = (text.match(/\n/g) ?? []).length;
  const crlfCount = (text.match(/\r\n/g) ?? []).length;
  return { text, hasBom, crlf: lf > 0 && crlfCount === lf };
}

/** Encode back, restoring the BOM when the original had one. */
export function encodeText(file: TextFile): string {
  return (file.hasBom ? BOM : '') + file.text;
}

/**
 * Read a text file of the home (race-safe, see home-fs.ts); throws a clear Error for a binary file,
 * a non-regular file, or one over {@link MAX_WHOLE_FILE_BYTES}.
 */
export async function readTextFile(target: ResolvedPath, shownPath: string): Promise<TextFile> {
  const buf = await readFileInHome(target, shownPath, MAX_WHOLE_FILE_BYTES);
  if (looksBinary(buf)) throw new Error(`${shownPath} is a binary file (${buf.length} bytes); it cannot be edited as text`);
  return decodeText(buf);
}

/** Write `content` to a file of the home (race-safe), creating parent folders. */
export async function writeTextFile(target: ResolvedPath, content: string, shownPath: string): Promise<void> {
  await writeFileInHome(target, content, shownPath);
}

/** Number of lines as an editor shows them (a trailing newline does not start a new line). */
export function countLines(text: string): number {
  if (text === '') return 0;
  const n = (text.match(/\n/g) ?? []).length;
  return text.endsWith('\n') ? n : n + 1;
}
