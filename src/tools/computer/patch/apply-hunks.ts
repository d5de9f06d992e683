/**
 * Apply the hunks of one `*** Update File` to a file's text, the way the reference implementation
 * (openai/codex `apply-patch`) does: hunks are located in order, each after the previous one; an
 * `@@ anchor` line is found first; old lines are matched exactly, then ignoring trailing
 * whitespace, then ignoring surrounding whitespace; `*** End of File` hunks match at the end.
 * Pure: text in, text out.
 */
import type { PatchHunk } from './parse-patch.js';

/** A hunk that did not apply; the message names the file and the hunk. */
export class HunkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HunkError';
  }
}

type Eq = (a: string, b: string) => boolean;
const MATCHERS: Eq[] = [
  (a, b) => a === b,
  (a, b) => a.trimEnd() === b.trimEnd(),
  (a, b) => a.trim() === b.trim(),
];

/**
 * First index ≥ start where `pattern` occurs in `lines`, or -1, trying each matcher in turn.
 * With `atEnd`, the position at the very end of the file is tried first.
 */
function seek(lines: string[], pattern: string[], start: number, atEnd: boolean): number {
  if (pattern.length === 0) return start;
  const last = lines.length - pattern.length;
  if (last < start) return -1;
  const matchesAt = (i: number, eq: Eq) => pattern.every((p, j) => eq(lines[i + j], p));
  for (const eq of MATCHERS) {
    if (atEnd && matchesAt(last, eq)) return last;
  }
  for (const eq of MATCHERS) {
    for (let i = start; i <= last; i++) if (matchesAt(i, eq)) return i;
  }
  return -1;
}

function describe(h: PatchHunk): string {
  return `hunk ${h.index}${h.anchor ? ` (@@ ${h.anchor})` : ''}`;
}

/**
 * Apply `hunks` to `text` (LF line breaks). The result ends with a newline.
 * @param file shown in error messages.
 * @throws HunkError naming the first hunk that could not be located.
 */
export function applyHunks(file: string, text: string, hunks: PatchHunk[]): string {
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const replacements: { at: number; remove: number; insert: string[] }[] = [];
  let cursor = 0;
  for (const h of hunks) {
    if (h.anchor !== undefined) {
      const a = seek(lines, [h.anchor], cursor, false);
      if (a === -1) throw new HunkError(`${file}: ${describe(h)} did not apply: the anchor line "${h.anchor}" was not found${cursor > 0 ? ` after line ${cursor}` : ''}`);
      cursor = a + 1;
    }
    if (h.oldLines.length === 0) {
      // Pure insertion: at the end of the file.
      replacements.push({ at: lines.length, remove: 0, insert: h.newLines });
      continue;
    }
    let oldLines = h.oldLines;
    let tagged = h.lines;
    let at = seek(lines, oldLines, cursor, h.endOfFile);
    if (at === -1 && oldLines[oldLines.length - 1] === '') {
      // A trailing empty context line often stands for the file's final newline.
      oldLines = oldLines.slice(0, -1);
      const last = tagged[tagged.length - 1];
      if (last?.tag === ' ' && last.text === '') tagged = tagged.slice(0, -1);
      at = seek(lines, oldLines, cursor, h.endOfFile);
    }
    if (at === -1) {
      const shown = h.oldLines.slice(0, 12).map((l) => `  ${l}`).join('\n');
      throw new HunkError(
        `${file}: ${describe(h)} did not apply: these lines were not found${cursor > 0 ? ` after line ${cursor}` : ''}${h.endOfFile ? ' at the end of the file' : ''}:\n${shown}${h.oldLines.length > 12 ? '\n  …' : ''}`,
      );
    }
    // Context lines keep the file's own text (they matched, perhaps up to whitespace).
    const newLines: string[] = [];
    let k = at;
    for (const l of tagged) {
      if (l.tag === ' ') newLines.push(lines[k++]);
      else if (l.tag === '-') k++;
      else newLines.push(l.text);
    }
    replacements.push({ at, remove: oldLines.length, insert: newLines });
    cursor = at + oldLines.length;
  }
  for (const r of [...replacements].sort((a, b) => b.at - a.at)) lines.splice(r.at, r.remove, ...r.insert);
  return lines.length ? `${lines.join('\n')}\n` : '';
}
