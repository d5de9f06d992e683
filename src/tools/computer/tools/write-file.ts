/**
 * `write_file` {path, content}: create or overwrite a file in the agent home, creating parent
 * folders. The content is written as given (UTF-8).
 */
import { lstat } from 'node:fs/promises';
import { z } from 'zod';
import { defineWorkerTool, textResult, type AgentToolResult } from '../../../runtime/tool.js';
import { labelPath, type ComputerToolDeps } from '../deps.js';
import { withHomeLock } from '../home-lock.js';
import { assertWithinBudget } from '../home-budget.js';
import { resolveInHome } from '../home.js';
import { countLines, writeTextFile } from '../text-file.js';
import { count } from '../../count.js';

const schema = z.object({
  path: z.string().min(1).describe('File path, relative to the agent home (or ~/…)'),
  content: z.string().describe('The complete new content of the file'),
});

export interface WriteFileDetails {
  path: string;
  created: boolean;
  bytes: number;
  lines: number;
}

export function writeFileTool(deps: ComputerToolDeps) {
  return defineWorkerTool({
    name: 'write_file',
    description: 'Create a file in your home folder, or overwrite it completely, with the given content. Parent folders are created. To change part of a file use edit_file or apply_patch.',
    schema,
    executionMode: 'sequential',
    // It overwrites or changes what is in the file (data can be lost): `approvals: "destructive"` asks.
    isDestructive: true,
    describeActivity: (p) => `Writing ${labelPath(p.path)}`,
    describeFailedActivity: (p, f) => (f.kind === 'cancelled' ? `Stopped writing ${labelPath(p.path)}` : `Could not write ${labelPath(p.path)}`),
    describeCompletedActivity: (p, r: AgentToolResult<WriteFileDetails>) =>
      r.details ? `${r.details.created ? 'Created' : 'Wrote'} ${labelPath(p.path)} (${count(r.details.lines, 'line')})` : undefined,
    execute: (p, ctx) =>
      withHomeLock(deps, 'shared', ctx, async () => {
        const target = await resolveInHome(deps.home, p.path);
        assertWithinBudget(target.home, deps.config.COMPUTER_HOME_MAX_MB);
        if (target.exists && (await lstat(target.real)).isDirectory()) throw new Error(`${p.path} is a folder; give a file path`);
        await writeTextFile(target, p.content, p.path);
        const details: WriteFileDetails = {
          path: target.relative,
          created: !target.exists,
          bytes: Buffer.byteLength(p.content),
          lines: countLines(p.content),
        };
        return textResult(`${details.created ? 'created' : 'overwrote'} ${target.relative} (${count(details.lines, 'line')}, ${count(details.bytes, 'byte')})`, details);
      }),
  });
}
