/**
 * `edit_file` {path, old_string, new_string, replace_all?}: exact string replacement in a text
 * file of the agent home. Zero matches, or several without `replace_all`, is an error saying which.
 * The file's BOM and line endings are kept: in a CRLF file, `\n` in old_string/new_string stands
 * for the file's `\r\n`. Returns a unified diff (the `diff` package).
 */
import { z } from 'zod';
import { defineWorkerTool, textResult, type AgentToolResult } from '../../../runtime/tool.js';
import { labelPath, type ComputerToolDeps } from '../deps.js';
import { withHomeLock } from '../home-lock.js';
import { assertWithinBudget } from '../home-budget.js';
import { resolveInHome } from '../home.js';
import { encodeText, readTextFile, writeTextFile } from '../text-file.js';
import { unifiedDiff } from './unified-diff.js';

const schema = z.object({
  path: z.string().min(1).describe('File path, relative to the agent home (or ~/…)'),
  old_string: z.string().min(1).describe('Exact text to replace (include enough context to be unique)'),
  new_string: z.string().describe('Replacement text'),
  replace_all: z.boolean().optional().describe('Replace every occurrence (default false: old_string must occur exactly once)'),
});

export interface EditFileDetails {
  path: string;
  replacements: number;
  added: number;
  removed: number;
}

function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

export function editFileTool(deps: ComputerToolDeps) {
  return defineWorkerTool({
    name: 'edit_file',
    description:
      'Replace an exact piece of text in a file of your home folder. old_string must match the file exactly (whitespace included) and occur once, unless replace_all is true. Returns a unified diff of the change.',
    schema,
    executionMode: 'sequential',
    // It overwrites or changes what is in the file (data can be lost): `approvals: "destructive"` asks.
    isDestructive: true,
    describeActivity: (p) => `Editing ${labelPath(p.path)}`,
    describeFailedActivity: (p, f) => (f.kind === 'cancelled' ? `Stopped editing ${labelPath(p.path)}` : `Could not edit ${labelPath(p.path)}`),
    describeCompletedActivity: (p, r: AgentToolResult<EditFileDetails>) =>
      r.details ? `Edited ${labelPath(p.path)} (+${r.details.added} -${r.details.removed})` : undefined,
    execute: (p, ctx) =>
      withHomeLock(deps, 'shared', ctx, async () => {
        if (p.old_string === p.new_string) throw new Error('old_string and new_string are identical; nothing to change');
        const target = await resolveInHome(deps.home, p.path);
        assertWithinBudget(target.home, deps.config.COMPUTER_HOME_MAX_MB);
        if (!target.exists) throw new Error(`${p.path} does not exist; create it with write_file`);
        const file = await readTextFile(target, p.path);
        let oldS = p.old_string;
        let newS = p.new_string;
        let count = countOccurrences(file.text, oldS);
        if (count === 0 && file.crlf && oldS.includes('\n')) {
          // The model wrote LF line breaks for a CRLF file: match and replace in the file's style.
          const toCrlf = (s: string) => s.replace(/\r?\n/g, '\r\n');
          oldS = toCrlf(oldS);
          newS = toCrlf(newS);
          count = countOccurrences(file.text, oldS);
        } else if (file.crlf) {
          newS = newS.replace(/\r?\n/g, '\r\n');
        }
        if (count === 0) throw new Error(`old_string was not found in ${p.path}; read the file again and copy the text exactly (whitespace included)`);
        if (count > 1 && !p.replace_all) {
          throw new Error(`old_string occurs ${count} times in ${p.path}; add surrounding context to make it unique, or set replace_all: true to replace every occurrence`);
        }
        const after = p.replace_all ? file.text.split(oldS).join(newS) : file.text.replace(oldS, () => newS);
        await writeTextFile(target, encodeText({ ...file, text: after }), p.path);
        const diff = unifiedDiff(target.relative, file.text, after);
        return textResult(`edited ${target.relative} (${count} replacement${count === 1 ? '' : 's'})\n${diff.text}`, {
          path: target.relative,
          replacements: count,
          added: diff.added,
          removed: diff.removed,
        });
      }),
  });
}
