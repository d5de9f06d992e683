/**
 * `ls` {path?}: the entries of one folder of the agent home (default: the home), sorted by name:
 * folders end in `/`, symbolic links show their target, files their size. At most 1000 entries.
 */
import { lstat, readdir, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineWorkerTool, textResult, type AgentToolResult } from '../../../runtime/tool.js';
import { labelPath, type ComputerToolDeps } from '../deps.js';
import { withHomeLock } from '../home-lock.js';
import { openDirInHome } from '../home-fs.js';
import { resolveInHome } from '../home.js';
import { count } from '../../count.js';

export const MAX_LS_ENTRIES = 1000;

const schema = z.object({
  path: z.string().optional().describe('Folder to list, relative to the agent home (default: the home itself)'),
});

export interface LsDetails {
  path: string;
  entries: number;
}

function size(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export function lsTool(deps: ComputerToolDeps) {
  return defineWorkerTool({
    name: 'ls',
    description: 'List the files and folders in a folder of your home (default: the home itself).',
    schema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: (p) => `Listing ${labelPath(p.path)}`,
    describeFailedActivity: (p, f) => (f.kind === 'cancelled' ? `Stopped listing ${labelPath(p.path)}` : `Could not list ${labelPath(p.path)}`),
    describeCompletedActivity: (p, r: AgentToolResult<LsDetails>) =>
      r.details ? `Listed ${labelPath(p.path)} (${count(r.details.entries, 'entry', 'entries')})` : undefined,
    execute: (p, ctx) =>
      withHomeLock(deps, 'shared', ctx, async () => {
        const target = await resolveInHome(deps.home, p.path ?? '.');
        if (!target.exists) throw new Error(`${p.path} does not exist`);
        if (!(await stat(target.real)).isDirectory()) throw new Error(`${p.path} is a file, not a folder; use read_file to read it`);
        // Listed through a descriptor opened race-safely (home-fs.ts), not the path again.
        const dir = await openDirInHome(target, p.path ?? '.');
        const lines: string[] = [];
        let names: string[];
        try {
          names = (await readdir(dir.path)).sort();
          for (const name of names.slice(0, MAX_LS_ENTRIES)) {
            const full = path.join(dir.path, name);
            const s = await lstat(full).catch(() => null);
            if (!s) continue;
            if (s.isSymbolicLink()) lines.push(`${name} -> ${await readlink(full).catch(() => '?')}`);
            else if (s.isDirectory()) lines.push(`${name}/`);
            else lines.push(`${name}  (${size(s.size)})`);
          }
        } finally {
          await dir.handle.close();
        }
        if (names.length > MAX_LS_ENTRIES) lines.push(`[… ${names.length - MAX_LS_ENTRIES} more entries not shown; use find with a pattern]`);
        const header = `${target.relative === '.' ? 'home' : target.relative}: ${count(names.length, 'entry', 'entries')}`;
        return textResult(names.length ? `${header}\n${lines.join('\n')}` : `${header} (empty folder)`, { path: target.relative, entries: names.length });
      }),
  });
}
