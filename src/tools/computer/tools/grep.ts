/**
 * `grep` {pattern, path?, literal?, context?, limit?}: search file contents in the agent home
 * (see search-files.ts for the engine and its bounds). Output lines as grep/ripgrep print them:
 * `path:line:text` for matches, `path-line-text` for context lines, `--` between groups.
 */
import { z } from 'zod';
import { defineWorkerTool, textResult, type AgentToolResult } from '../../../runtime/tool.js';
import { labelText, type ComputerToolDeps } from '../deps.js';
import { withHomeLock } from '../home-lock.js';
import { resolveInHome } from '../home.js';
import { searchFiles } from './search-files.js';
import { count } from '../../count.js';

const schema = z.object({
  pattern: z.string().min(1).describe('Regular expression (RE2 syntax: like JavaScript without lookaround/backreferences), or plain text with literal: true'),
  path: z.string().optional().describe('File or folder to search, relative to the home (default: the home)'),
  literal: z.boolean().optional().describe('Treat pattern as plain text (default false)'),
  context: z.number().int().min(0).max(10).optional().describe('Lines of context around each match (default 0)'),
  limit: z.number().int().min(1).max(1000).optional().describe('Max matching lines (default 100)'),
});

export interface GrepDetails {
  matches: number;
  files: number;
  stoppedBecause?: string;
}

export function grepTool(deps: ComputerToolDeps) {
  return defineWorkerTool({
    name: 'grep',
    description: 'Search the contents of text files in your home for a regular expression (or literal text). Returns matching lines as path:line:text. .git and node_modules are skipped.',
    schema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: (p) => `Searching for ${labelText(p.pattern, 40)}`,
    describeFailedActivity: (p, f) => (f.kind === 'cancelled' ? `Stopped searching for ${labelText(p.pattern, 40)}` : `Could not search for ${labelText(p.pattern, 40)}`),
    describeCompletedActivity: (p, r: AgentToolResult<GrepDetails>) =>
      r.details
        ? `Found ${count(r.details.matches, 'match', 'matches')} for ${labelText(p.pattern, 40)} in ${count(r.details.files, 'file')}`
        : undefined,
    execute: (p, ctx) =>
      withHomeLock(deps, 'shared', ctx, async () => {
        const target = await resolveInHome(deps.home, p.path ?? '.');
        if (!target.exists) throw new Error(`${p.path} does not exist`);
        const r = await searchFiles(target.home, target.real, {
          pattern: p.pattern,
          literal: p.literal ?? false,
          context: p.context ?? 0,
          limit: p.limit ?? 100,
          signal: ctx.signal,
        });
        const notes: string[] = [];
        if (r.stoppedBecause) notes.push(`search stopped early: ${r.stoppedBecause}`);
        if (r.skippedBinary) notes.push(`${count(r.skippedBinary, 'binary file')} skipped`);
        if (r.skippedLarge) notes.push(`${r.skippedLarge} files over 10 MiB skipped`);
        let text = r.matches ? r.lines.join('\n') : `no matches for ${JSON.stringify(p.pattern)}`;
        if (notes.length) text += `\n[${notes.join('; ')}]`;
        return textResult(text, { matches: r.matches, files: r.files, stoppedBecause: r.stoppedBecause });
      }),
  });
}
