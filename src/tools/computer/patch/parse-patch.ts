/**
 * Parser for the patch format OpenAI models are trained to emit for `apply_patch`
 * (openai/codex `apply-patch`, "*** Begin Patch" … "*** End Patch"):
 *
 * ```
 * *** Begin Patch
 * *** Add File: path          then every content line prefixed with "+"
 * *** Delete File: path
 * *** Update File: path
 * *** Move to: new/path       (optional, right after Update File)
 * @@ optional anchor text     one per hunk (may be omitted before the first hunk)
 *  context line               " " context, "-" removed, "+" added
 * *** End of File             (optional: the hunk must match at the end of the file)
 * *** End Patch
 * ```
 * Lenient like the reference implementation: markers may carry surrounding whitespace, a
 * `<<'EOF'` heredoc wrapper is ignored, and an empty line inside a hunk is an empty context line.
 */

export interface PatchHunk {
  /** Text after `@@` (an anchor line to find before the hunk), or undefined. */
  anchor?: string;
  /** Lines that must be present: context and removed lines, in order. */
  oldLines: string[];
  /** Lines that replace them: context and added lines, in order. */
  newLines: string[];
  /** Every line in patch order with its tag: ' ' context, '-' removed, '+' added. */
  lines: { tag: ' ' | '-' | '+'; text: string }[];
  /** `*** End of File` followed the hunk. */
  endOfFile: boolean;
  /** 1-based number of the hunk within its file operation (for error messages). */
  index: number;
}

export type PatchOperation =
  | { type: 'add'; path: string; content: string }
  | { type: 'delete'; path: string }
  | { type: 'update'; path: string; moveTo?: string; hunks: PatchHunk[] };

/** A syntax error; the message names the patch line. */
export class PatchSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatchSyntaxError';
  }
}

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const EOF_MARK = '*** End of File';

/** Parse `patch` into file operations, in order. @throws PatchSyntaxError */
export function parsePatch(patch: string): PatchOperation[] {
  let lines = patch.replace(/\r\n/g, '\n').split('\n');
  // Drop a heredoc wrapper (apply_patch <<'EOF' … EOF) and surrounding blank lines.
  while (lines.length && lines[0].trim() === '') lines.shift();
  while (lines.length && lines[lines.length - 1].trim() === '') lines.pop();
  if (lines.length && /^(apply_patch\s+)?<<\s*['"]?EOF['"]?\s*$/.test(lines[0].trim())) {
    lines = lines.slice(1);
    if (lines.length && lines[lines.length - 1].trim() === 'EOF') lines.pop();
  }
  if (lines[0]?.trim() !== BEGIN) throw new PatchSyntaxError(`the patch must start with "${BEGIN}"`);
  if (lines[lines.length - 1]?.trim() !== END) throw new PatchSyntaxError(`the patch must end with "${END}"`);
  const body = lines.slice(1, -1);
  const ops: PatchOperation[] = [];
  let i = 0;
  const at = (n: number) => `patch line ${n + 2}`;
  while (i < body.length) {
    const line = body[i].trim();
    if (line === '') {
      i++;
      continue;
    }
    if (line.startsWith(ADD)) {
      const path = line.slice(ADD.length).trim();
      const content: string[] = [];
      i++;
      while (i < body.length && !body[i].startsWith('***')) {
        if (!body[i].startsWith('+')) throw new PatchSyntaxError(`${at(i)}: every line of an added file must start with "+" (Add File: ${path})`);
        content.push(body[i].slice(1));
        i++;
      }
      ops.push({ type: 'add', path, content: content.length ? `${content.join('\n')}\n` : '' });
    } else if (line.startsWith(DELETE)) {
      ops.push({ type: 'delete', path: line.slice(DELETE.length).trim() });
      i++;
    } else if (line.startsWith(UPDATE)) {
      const path = line.slice(UPDATE.length).trim();
      i++;
      let moveTo: string | undefined;
      if (i < body.length && body[i].trim().startsWith(MOVE)) {
        moveTo = body[i].trim().slice(MOVE.length).trim();
        i++;
      }
      const hunks: PatchHunk[] = [];
      let current: PatchHunk | null = null;
      while (i < body.length) {
        const raw = body[i];
        const t = raw.trim();
        if (t.startsWith(ADD) || t.startsWith(DELETE) || t.startsWith(UPDATE)) break;
        if (t === EOF_MARK) {
          if (!current) throw new PatchSyntaxError(`${at(i)}: "${EOF_MARK}" before any hunk (Update File: ${path})`);
          current.endOfFile = true;
          i++;
          continue;
        }
        if (raw.startsWith('@@')) {
          const anchor = raw.slice(2).trim();
          current = { anchor: anchor === '' ? undefined : anchor, oldLines: [], newLines: [], lines: [], endOfFile: false, index: hunks.length + 1 };
          hunks.push(current);
          i++;
          continue;
        }
        if (!current) {
          // The first hunk may omit its @@ line.
          current = { oldLines: [], newLines: [], lines: [], endOfFile: false, index: 1 };
          hunks.push(current);
        }
        const tag = raw[0] ?? ' ';
        const text = raw.slice(1);
        if (tag === ' ' || raw === '') {
          current.oldLines.push(text);
          current.newLines.push(text);
          current.lines.push({ tag: ' ', text });
        } else if (tag === '-') {
          current.oldLines.push(text);
          current.lines.push({ tag: '-', text });
        } else if (tag === '+') {
          current.newLines.push(text);
          current.lines.push({ tag: '+', text });
        } else {
          throw new PatchSyntaxError(`${at(i)}: hunk ${current.index} of ${path}: a line must start with " ", "-" or "+" (got ${JSON.stringify(raw.slice(0, 40))})`);
        }
        i++;
      }
      const empty = hunks.filter((h) => h.oldLines.length === 0 && h.newLines.length === 0);
      if (hunks.length === 0 || empty.length > 0) {
        if (!moveTo || hunks.length > 0) throw new PatchSyntaxError(`Update File: ${path} has ${hunks.length === 0 ? 'no hunks' : `an empty hunk (${empty[0].index})`}`);
      }
      ops.push({ type: 'update', path, moveTo, hunks });
    } else {
      throw new PatchSyntaxError(`${at(i)}: expected "${ADD}", "${DELETE}" or "${UPDATE}", got ${JSON.stringify(line.slice(0, 60))}`);
    }
  }
  if (ops.length === 0) throw new PatchSyntaxError('the patch contains no file operations');
  for (const op of ops) if (op.path === '') throw new PatchSyntaxError(`a "${op.type}" operation has no path`);
  return ops;
}
