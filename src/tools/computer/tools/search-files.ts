/**
 * Bounded content search for `grep`: RE2 syntax through re2js (a linear-time engine, so a
 * model-written pattern cannot hang the service with catastrophic backtracking), line by line,
 * over text files found with {@link globInHome}. Symbolic links inside a searched folder are not
 * followed; binary files, files over 10 MiB and non-regular files (FIFOs, sockets, devices) are skipped;
 * the scan stops after `limit` matches, 20 000 files or 256 MiB read, or when `signal` aborts.
 */
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { readOpened, verifyOpenedInside } from '../home-fs.js';
import path from 'node:path';
import { RE2JS } from 're2js';
import { looksBinary } from '../text-file.js';
import { globInHome } from './home-glob.js';
import { keepHead } from '../../../runtime/text-cut.js';

export const GREP_LIMITS = {
  maxFiles: 20_000,
  maxFileBytes: 10 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
  maxLineChars: 300,
};

export interface SearchOptions {
  /** RE2 regular expression, or a literal string when `literal`. */
  pattern: string;
  literal: boolean;
  /** Lines of context before and after each match (0–10). */
  context: number;
  /** Max matching lines reported. */
  limit: number;
  signal?: AbortSignal;
}

export interface SearchResult {
  /** Output lines: `path:line:text` for matches, `path-line-text` for context, `--` between groups. */
  lines: string[];
  matches: number;
  files: number;
  /** Why the scan stopped early, if it did. */
  stoppedBecause?: string;
  skippedBinary: number;
  skippedLarge: number;
}

/** Compile `pattern`; throws an Error the model can act on for a bad RE2 pattern. */
export function compilePattern(pattern: string, literal: boolean): RE2JS {
  try {
    return RE2JS.compile(literal ? RE2JS.quote(pattern) : pattern);
  } catch (err) {
    throw new Error(`invalid regular expression ${JSON.stringify(pattern)}: ${(err as Error).message} (RE2 syntax: no lookaround or backreferences; set literal: true to search for the text as is)`);
  }
}

function clip(line: string): string {
  return line.length > GREP_LIMITS.maxLineChars ? `${keepHead(line, GREP_LIMITS.maxLineChars)}…` : line;
}

/**
 * Search `target` (a file or a folder, real path) and show paths relative to `home`.
 * @throws Error for an invalid pattern.
 */
export async function searchFiles(home: string, target: string, o: SearchOptions): Promise<SearchResult> {
  const re = compilePattern(o.pattern, o.literal);
  const isDir = (await stat(target)).isDirectory();
  const files = isDir ? (await globInHome(target, '**/*', { signal: o.signal })).map((f) => path.join(target, f)) : [target];
  const result: SearchResult = { lines: [], matches: 0, files: 0, skippedBinary: 0, skippedLarge: 0 };
  let totalBytes = 0;
  let scanned = 0;
  for (const file of files) {
    if (o.signal?.aborted) {
      result.stoppedBecause = 'aborted';
      break;
    }
    if (scanned >= GREP_LIMITS.maxFiles) {
      result.stoppedBecause = `${GREP_LIMITS.maxFiles} files scanned`;
      break;
    }
    // O_NOFOLLOW|O_NONBLOCK + fstat: symbolic links are not followed (one could point out of the
    // home), FIFOs/sockets/devices are skipped without blocking, the fd is verified in the home.
    const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
    if (!handle) continue;
    let buf: Buffer | null = null;
    try {
      const info = await handle.stat();
      if (!info.isFile()) continue;
      if (info.size > GREP_LIMITS.maxFileBytes) {
        result.skippedLarge++;
        continue;
      }
      if (totalBytes + info.size > GREP_LIMITS.maxTotalBytes) {
        result.stoppedBecause = `${GREP_LIMITS.maxTotalBytes / 1024 / 1024} MiB read`;
        break;
      }
      scanned++;
      await verifyOpenedInside(home, handle, file);
      buf = await readOpened({ handle, stat: info }, file, GREP_LIMITS.maxFileBytes).catch(() => null);
    } catch {
      continue;
    } finally {
      await handle.close();
    }
    if (!buf) continue;
    totalBytes += buf.length;
    if (looksBinary(buf)) {
      result.skippedBinary++;
      continue;
    }
    const shown = path.relative(home, file) || path.basename(file);
    const lines = buf.toString('utf8').replace(/^\uFEFF/, '').split(/\r?\n/);
    if (lines[lines.length - 1] === '') lines.pop();
    const hits: number[] = [];
    for (let i = 0; i < lines.length && result.matches + hits.length < o.limit; i++) if (re.test(lines[i])) hits.push(i);
    if (hits.length === 0) continue;
    result.files++;
    result.matches += hits.length;
    // Windows of context around the hits, merged when they touch; "--" between windows.
    const hitSet = new Set(hits);
    let windowEnd = -2;
    for (const h of hits) {
      const from = Math.max(0, h - o.context, windowEnd + 1);
      if (o.context > 0 && result.lines.length && from > windowEnd + 1) result.lines.push('--');
      const to = Math.min(lines.length - 1, h + o.context);
      for (let c = from; c <= to; c++) result.lines.push(`${shown}${hitSet.has(c) ? ':' : '-'}${c + 1}${hitSet.has(c) ? ':' : '-'}${clip(lines[c])}`);
      windowEnd = Math.max(windowEnd, to);
    }
    if (result.matches >= o.limit) {
      result.stoppedBecause = `limit of ${o.limit} matches reached`;
      break;
    }
  }
  return result;
}
