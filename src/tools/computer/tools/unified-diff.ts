/**
 * Unified diff of one file's change (the `diff` package), with added/removed line counts, capped
 * so a huge rewrite does not flood the model.
 */
import { formatPatch, structuredPatch } from 'diff';
import { keepHead } from '../../../runtime/text-cut.js';

/** Longest diff text returned, characters. */
export const MAX_DIFF_CHARS = 20_000;

export interface FileDiff {
  /** `--- a/<path>` / `+++ b/<path>` unified diff (3 lines of context), possibly clipped. */
  text: string;
  added: number;
  removed: number;
}

/** Diff `before` → `after` of `file` (home-relative path); CRLF shown as LF. */
export function unifiedDiff(file: string, before: string, after: string): FileDiff {
  const lf = (s: string) => s.replace(/\r\n/g, '\n');
  const patch = structuredPatch(`a/${file}`, `b/${file}`, lf(before), lf(after), undefined, undefined, { context: 3 });
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  let text = formatPatch(patch).replace(/^=+\n/m, '');
  if (text.length > MAX_DIFF_CHARS) text = `${keepHead(text, MAX_DIFF_CHARS)}\n[diff clipped at ${MAX_DIFF_CHARS} characters]`;
  return { text, added, removed };
}
