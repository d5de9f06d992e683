/**
 * `apply_patch` {patch}: apply a "*** Begin Patch … *** End Patch" patch (Add File, Update File
 * with @@ hunks, Delete File, Move to) to files in the agent home. All or nothing: every operation
 * is computed in memory first; when any hunk does not apply, nothing is written and the error
 * names the file and the hunk. If writing fails part-way, files already written are restored.
 * Files keep their BOM and CRLF line endings. Files over 10 MiB (MAX_WHOLE_FILE_BYTES) and
 * non-regular files (FIFOs, sockets, devices) are refused.
 */
import { z } from 'zod';
import { defineWorkerTool, textResult, type AgentToolResult } from '../../../runtime/tool.js';
import { labelText, type ComputerToolDeps } from '../deps.js';
import { withHomeLock } from '../home-lock.js';
import { ensureHome, resolveInHome, type ResolvedPath } from '../home.js';
import { assertWithinBudget } from '../home-budget.js';
import { MAX_WHOLE_FILE_BYTES, readFileInHome, unlinkInHome, writeFileInHome } from '../home-fs.js';
import { applyHunks } from '../patch/apply-hunks.js';
import { parsePatch } from '../patch/parse-patch.js';
import { decodeText, looksBinary, writeTextFile } from '../text-file.js';
import { unifiedDiff } from './unified-diff.js';
import { keepHead } from '../../../runtime/text-cut.js';

const schema = z.object({
  patch: z.string().min(1).describe('The whole patch, from "*** Begin Patch" to "*** End Patch"'),
});

/** One file touched by the patch: what it was and what it becomes. */
interface Entry {
  target: ResolvedPath;
  real: string;
  relative: string;
  /** Bytes on disk before the patch; null when absent. */
  original: Buffer | null;
  /** Content after the operations so far (LF line breaks); null = absent. */
  current: string | null;
  hasBom: boolean;
  crlf: boolean;
}

export interface ApplyPatchDetails {
  added: string[];
  updated: string[];
  deleted: string[];
  moved: { from: string; to: string }[];
}

const MAX_OUTPUT_CHARS = 30_000;

function encode(e: Entry): string {
  const text = e.crlf ? e.current!.replace(/\n/g, '\r\n') : e.current!;
  return (e.hasBom ? '\uFEFF' : '') + text;
}

export function applyPatchTool(deps: ComputerToolDeps) {
  return defineWorkerTool({
    name: 'apply_patch',
    description: [
      'Apply a patch to files in your home folder. Format:',
      '*** Begin Patch',
      '*** Add File: path/new.txt',
      '+line of the new file',
      '*** Update File: path/old.txt',
      '*** Move to: path/renamed.txt   (optional)',
      '@@ optional line to anchor the hunk (e.g. a function header)',
      ' context line',
      '-removed line',
      '+added line',
      '*** Delete File: path/gone.txt',
      '*** End Patch',
      'Give about 3 lines of context around each change. The patch applies completely or not at all.',
    ].join('\n'),
    schema,
    executionMode: 'sequential',
    isDestructive: true,
    describeActivity: (p) => {
      const files = [...p.patch.matchAll(/^\s*\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((m) => m[1].trim());
      return files.length === 1 ? `Patching ${labelText(files[0], 80)}` : `Applying a patch to ${files.length} files`;
    },
    describeFailedActivity: (_p, f) => (f.kind === 'cancelled' ? 'Stopped applying the patch' : 'Could not apply the patch'),
    describeCompletedActivity: (_p, r: AgentToolResult<ApplyPatchDetails>) => {
      const d = r.details;
      if (!d) return undefined;
      const parts = [
        d.added.length && `${d.added.length} added`,
        d.updated.length && `${d.updated.length} updated`,
        d.deleted.length && `${d.deleted.length} deleted`,
        d.moved.length && `${d.moved.length} moved`,
      ].filter(Boolean);
      return `Patched files (${parts.join(', ')})`;
    },
    execute: (p, ctx) =>
      withHomeLock(deps, 'shared', ctx, async () => {
        let ops;
        try {
          ops = parsePatch(p.patch);
        } catch (err) {
          throw new Error(`invalid patch: ${(err as Error).message}; nothing was changed`);
        }
        assertWithinBudget(await ensureHome(deps.home), deps.config.COMPUTER_HOME_MAX_MB);
        const entries = new Map<string, Entry>();
        const load = async (path: string): Promise<Entry> => {
          const target = await resolveInHome(deps.home, path);
          const known = entries.get(target.real);
          if (known) return known;
          let original: Buffer | null = null;
          if (target.exists) {
            try {
              original = await readFileInHome(target, path, MAX_WHOLE_FILE_BYTES);
            } catch (err) {
              throw new Error(`${(err as Error).message}; nothing was changed`);
            }
            if (looksBinary(original)) throw new Error(`${path} is a binary file; apply_patch edits text files only; nothing was changed`);
          }
          const decoded = original ? decodeText(original) : null;
          const entry: Entry = {
            target,
            real: target.real,
            relative: target.relative,
            original,
            current: decoded ? decoded.text.replace(/\r\n/g, '\n') : null,
            hasBom: decoded?.hasBom ?? false,
            crlf: decoded?.crlf ?? false,
          };
          entries.set(target.real, entry);
          return entry;
        };

        const details: ApplyPatchDetails = { added: [], updated: [], deleted: [], moved: [] };
        const summary: string[] = [];
        const diffs: string[] = [];
        for (const op of ops) {
          const e = await load(op.path);
          if (op.type === 'add') {
            e.current = op.content;
            details.added.push(e.relative);
            summary.push(`A ${e.relative}`);
          } else if (op.type === 'delete') {
            if (e.current === null) throw new Error(`Delete File: ${op.path} does not exist; nothing was changed`);
            e.current = null;
            details.deleted.push(e.relative);
            summary.push(`D ${e.relative}`);
          } else {
            if (e.current === null) throw new Error(`Update File: ${op.path} does not exist; nothing was changed (use Add File to create it)`);
            let next: string;
            try {
              next = op.hunks.length ? applyHunks(e.relative, e.current, op.hunks) : e.current;
            } catch (err) {
              throw new Error(`${(err as Error).message}\nNothing was changed; read the file and send the patch again with exact context lines.`);
            }
            diffs.push(unifiedDiff(op.moveTo ? `${e.relative} -> ${op.moveTo}` : e.relative, e.current, next).text);
            if (op.moveTo) {
              const dest = await load(op.moveTo);
              dest.current = next;
              dest.hasBom = e.hasBom;
              dest.crlf = e.crlf;
              e.current = null;
              details.moved.push({ from: e.relative, to: dest.relative });
              summary.push(`R ${e.relative} -> ${dest.relative}`);
            } else {
              e.current = next;
              details.updated.push(e.relative);
              summary.push(`M ${e.relative}`);
            }
          }
        }

        // Write phase: restore everything already written if one write fails.
        const written: Entry[] = [];
        try {
          for (const e of entries.values()) {
            if (e.current === null) {
              if (e.original !== null) await unlinkInHome(e.target, e.relative);
            } else {
              const bytes = encode(e);
              if (e.original !== null && e.original.equals(Buffer.from(bytes))) continue;
              await writeTextFile(e.target, bytes, e.relative);
            }
            written.push(e);
          }
        } catch (err) {
          for (const e of written.reverse()) {
            if (e.original === null) await unlinkInHome(e.target, e.relative).catch(() => undefined);
            else await writeFileInHome(e.target, e.original, e.relative).catch(() => undefined);
          }
          throw new Error(`writing the patch failed (${(err as Error).message}); the files already written were restored`);
        }
        let text = `Success. Updated the following files:\n${summary.join('\n')}`;
        if (diffs.length) text += `\n\n${diffs.join('\n')}`;
        if (text.length > MAX_OUTPUT_CHARS) text = `${keepHead(text, MAX_OUTPUT_CHARS)}\n[output clipped]`;
        return textResult(text, details);
      }),
  });
}
