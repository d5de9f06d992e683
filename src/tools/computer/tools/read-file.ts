/**
 * `read_file` {path, offset?, limit?}: numbered lines of a text file in the agent home.
 * Lines are 1-based; at most `limit` (default 500, max 2000) from `offset` (default 1); lines
 * longer than 2000 characters are clipped; a footer gives the range, the total and the offset to
 * continue with. A binary file is refused; a missing file is a normal "not found" result.
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { defineWorkerTool, textResult, type AgentToolResult } from '../../../runtime/tool.js';
import { labelPath, type ComputerToolDeps } from '../deps.js';
import { resolveInHome } from '../home.js';
import { looksBinary } from '../text-file.js';

export const MAX_LINE_CHARS = 2000;

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
    describeCompletedActivity: (p, r: Result) => {
      const d = r.details;
      if (!d?.found) return `Could not find ${labelPath(p.path)}`;
      if (!d.totalLines) return `Read ${labelPath(p.path)} (empty)`;
      return `Read ${labelPath(p.path)} (lines ${d.startLine}-${d.endLine} of ${d.totalLines})`;
    },
    execute: async (p): Promise<Result> => {
      const target = await resolveInHome(deps.home, p.path);
      if (!target.exists) return textResult(`not found: ${p.path} (no such file in the home)`, { path: target.relative, found: false });
      const info = await stat(target.real);
      if (info.isDirectory()) throw new Error(`${p.path} is a folder, not a file; use ls to list it`);
      if (!info.isFile()) throw new Error(`${p.path} is not a regular file`);
      const handle = await open(target.real, 'r');
      try {
        const head = Buffer.alloc(Math.min(info.size, 8192));
        await handle.read(head, 0, head.length, 0);
        if (looksBinary(head)) {
          throw new Error(`${p.path} is a binary file (${info.size} bytes); read_file shows text only — inspect it with a command such as \`file\` or \`xxd | head\``);
        }
      } finally {
        await handle.close();
      }
      const offset = p.offset ?? 1;
      const limit = p.limit ?? 500;
      const shown: string[] = [];
      let total = 0;
      const lines = createInterface({ input: createReadStream(target.real, { encoding: 'utf8' }), crlfDelay: Infinity });
      for await (const raw of lines) {
        total++;
        if (total < offset || total >= offset + limit) continue;
        let line = total === 1 ? raw.replace(/^\uFEFF/, '') : raw;
        if (line.length > MAX_LINE_CHARS) line = `${line.slice(0, MAX_LINE_CHARS)}… [line clipped: ${line.length} characters]`;
        shown.push(`${String(total).padStart(6)}\t${line}`);
      }
      if (total === 0) return textResult(`${target.relative} is empty (0 lines)`, { path: target.relative, found: true, totalLines: 0 });
      if (offset > total) throw new Error(`offset ${offset} is past the end of ${p.path} (${total} lines)`);
      const end = offset + shown.length - 1;
      const footer = end < total
        ? `[lines ${offset}-${end} of ${total}; continue with offset=${end + 1}]`
        : `[lines ${offset}-${end} of ${total}; end of file]`;
      return textResult(`${shown.join('\n')}\n${footer}`, { path: target.relative, found: true, startLine: offset, endLine: end, totalLines: total });
    },
  });
}
