/**
 * `find` {pattern, path?, limit?}: files under a folder of the agent home whose path matches a
 * glob (picomatch syntax via tinyglobby: `**` / `*.ts` / `{a,b}`). Paths are shown relative to the
 * home, sorted; at most `limit` (default 200, max 1000).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineWorkerTool, textResult, type AgentToolResult } from '../../../runtime/tool.js';
import { labelText, type ComputerToolDeps } from '../deps.js';
import { withHomeLock } from '../home-lock.js';
import { resolveInHome } from '../home.js';
import { globInHome } from './home-glob.js';
import { count } from '../../count.js';

const schema = z.object({
  pattern: z.string().min(1).describe('Glob relative to the search folder, e.g. "**/*.ts" or "src/*.{js,json}" (at most 256 characters and 3 "*" per path segment; no extglobs)'),
  path: z.string().optional().describe('Folder to search in, relative to the home (default: the home)'),
  limit: z.number().int().min(1).max(1000).optional().describe('Max paths returned (default 200)'),
});

export interface FindDetails {
  matches: number;
  shown: number;
}

export function findTool(deps: ComputerToolDeps) {
  return defineWorkerTool({
    name: 'find',
    description: 'Find files in your home whose path matches a glob pattern (e.g. "**/*.md"). .git and node_modules are skipped unless the pattern names them.',
    schema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: (p) => `Finding ${labelText(p.pattern)}`,
    describeFailedActivity: (p, f) => (f.kind === 'cancelled' ? `Stopped finding ${labelText(p.pattern)}` : `Could not find ${labelText(p.pattern)}`),
    describeCompletedActivity: (p, r: AgentToolResult<FindDetails>) =>
      r.details ? `Found ${count(r.details.matches, 'file')} matching ${labelText(p.pattern)}` : undefined,
    execute: (p, ctx) =>
      withHomeLock(deps, 'shared', ctx, async () => {
        const base = await resolveInHome(deps.home, p.path ?? '.');
        if (!base.exists || !(await stat(base.real)).isDirectory()) throw new Error(`${p.path} is not a folder in the home`);
        const found = await globInHome(base.real, p.pattern, { signal: ctx.signal });
        const limit = p.limit ?? 200;
        const shown = found.slice(0, limit).map((f) => (base.relative === '.' ? f : path.posix.join(base.relative, f)));
        let text = found.length ? shown.join('\n') : `no files match ${p.pattern}`;
        if (found.length > limit) text += `\n[${found.length - limit} more matches not shown (${found.length} in total); narrow the pattern or raise limit]`;
        return textResult(text, { matches: found.length, shown: shown.length });
      }),
  });
}
