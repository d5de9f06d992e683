/**
 * `read_file` {path, offset?, limit?}: numbered lines of a text file in the agent home.
 * Lines are 1-based; at most `limit` (default 500, max 2000) from `offset` (default 1); lines
 * longer than 2000 characters are clipped; lines stop early when the next would pass the call's
 * output budget (TOOL_OUTPUT_MAX_CHARS); a footer gives the range, the total and the offset to
 * continue with. A binary file is refused; a missing file is a normal "not found" result.
 * The file is read in bounded chunks (read-lines.ts), so any size and any line length is safe; a
 * FIFO, socket or device is refused (home-fs.ts).
 */
import { count } from '../../count.js';
import { lstat } from 'node:fs/promises';
import { z } from 'zod';
import { defineWorkerTool, textResult, type AgentToolResult } from '../../../runtime/tool.js';
import { labelPath, type ComputerToolDeps } from '../deps.js';
import { withHomeLock } from '../home-lock.js';
import { resolveInHome } from '../home.js';
import { openInHome } from '../home-fs.js';
import { readLineWindow } from '../read-lines.js';
import { looksBinary } from '../text-file.js';
import { keepHead } from '../../../runtime/text-cut.js';

export const MAX_LINE_CHARS = 2000;
/** Characters of the output budget kept for the footer line. */
const FOOTER_RESERVE = 200;

const schema = z.object({
  path: z.string().min(1).describe('File path, relative to the agent home (or ~/…)'),
  offset: z.number().int().min(1).optional().describe('First line to show, 1-based (default 1)'),
  limit: z.number().int().min(1).max(2000).optional().describe('Number of lines to show (default 500, max 2000)'),
});

export interface ReadFileDetails {
  path: string;
  found: boolean;
  startLine?: number;
  endLine?: number;
  totalLines?: number;
}

type Result = AgentToolResult<ReadFileDetails>;

export function readFileTool(deps: ComputerToolDeps) {
  return defineWorkerTool({
    name: 'read_file',
    description:
      'Read a text file from your home folder. Returns numbered lines (default the first 500; use offset/limit to page through long files). Binary files are refused.',
    schema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: (p) => `Reading ${labelPath(p.path)}`,
    describeFailedActivity: (p, f) => (f.kind === 'cancelled' ? `Stopped reading ${labelPath(p.path)}` : `Could not read ${labelPath(p.path)}`),
    describeCompletedActivity: (p, r: Result) => {
      const d = r.details;
      if (!d?.found) return `Could not find ${labelPath(p.path)}`;
      if (!d.totalLines) return `Read ${labelPath(p.path)} (empty)`;
      return `Read ${labelPath(p.path)} (lines ${d.startLine}-${d.endLine} of ${d.totalLines})`;
    },
    execute: (p, ctx): Promise<Result> =>
      withHomeLock(deps, 'shared', ctx, async () => {
        const target = await resolveInHome(deps.home, p.path);
        if (!target.exists) return textResult(`not found: ${p.path} (no such file in the home)`, { path: target.relative, found: false });
        const info = await lstat(target.real);
        if (info.isDirectory()) throw new Error(`${p.path} is a folder, not a file; use ls to list it`);
        const { handle, stat: opened } = await openInHome(target, 'read', p.path);
        const offset = p.offset ?? 1;
        const limit = p.limit ?? 500;
        let window;
        try {
          // 3 bytes past the 8 KiB sniffed, so a multi-byte character cut at 8 KiB is not taken for binary.
          const head = Buffer.alloc(Math.min(opened.size, 8192 + 3));
          await handle.read(head, 0, head.length, 0);
          if (looksBinary(head)) {
            throw new Error(`${p.path} is a binary file (${opened.size} bytes); read_file shows text only — inspect it with a command such as \`file\` or \`xxd | head\``);
          }
          window = await readLineWindow(handle, { offset, limit, maxLineChars: MAX_LINE_CHARS, signal: ctx.signal });
        } finally {
          await handle.close();
        }
        const total = window.total;
        // Lines are shown while they fit in the call's output budget (the footer then gives the
        // offset to continue with); a first line alone over the budget is clipped to fit.
        const room = ctx.outputMaxChars - FOOTER_RESERVE;
        const shown: string[] = [];
        let used = 0;
        for (const l of window.lines) {
          const line = l.atLeast
          ? `${l.text}… [line clipped: more than ${l.chars} characters]`
          : l.chars > MAX_LINE_CHARS ? `${l.text}… [line clipped: ${l.chars} characters]` : l.text;
          let numbered = `${String(l.n).padStart(6)}\t${line}`;
          if (used + numbered.length + 1 > room) {
            if (shown.length > 0) break;
            numbered = `${keepHead(numbered, Math.max(0, room - 60))}… [line clipped to the output budget: ${l.chars} characters]`;
          }
          shown.push(numbered);
          used += numbered.length + 1;
        }
        const budgetNote = shown.length < window.lines.length ? `; output budget of ${ctx.outputMaxChars} characters reached` : '';
        if (total === 0) return textResult(`${target.relative} is empty (0 lines)`, { path: target.relative, found: true, totalLines: 0 });
        if (offset > total && !window.complete) throw new Error(`offset ${offset} is beyond the first 1 GiB of ${p.path} (${total} lines there), which is as far as read_file reads; use a command such as tail or sed`);
        if (offset > total) throw new Error(`offset ${offset} is past the end of ${p.path} (${count(total, 'line')})`);
        const end = offset + shown.length - 1;
        const footer = !window.complete
          ? `[lines ${offset}-${end} of at least ${total} (read_file stops counting after 1 GiB); continue with offset=${end + 1}]`
          : end < total
          ? `[lines ${offset}-${end} of ${total}${budgetNote}; continue with offset=${end + 1}]`
          : `[lines ${offset}-${end} of ${total}; end of file]`;
        return textResult(`${shown.join('\n')}\n${footer}`, { path: target.relative, found: true, startLine: offset, endLine: end, totalLines: total });
      }),
  });
}
