/**
 * `reply_attachment` {path, name?, mime_type?} (sequential): hand a file to the user with the
 * reply. The file must resolve (real path, symbolic links followed) inside `~/outbox/` of the
 * agent home, else `reply_attachment only accepts files under ~/outbox`. It is copied at once (a
 * snapshot: later edits do not change what the user downloads; at most 50 MiB) into the
 * attachment store, and a `presentation` event `{type: 'attachment', attachment_id, name,
 * mime_type, size, url}` tells clients where to download it
 * (`GET /v1/turns/{id}/attachments/{attachment_id}`). The model sees a one-line confirmation.
 * The attachment's name (`name`, else the file's own name) must be a plain file name
 * (src/attachments/file-name.ts: no folders, control characters, line separators, invisible
 * characters or bidirectional controls): a
 * bad `name` is an invalid-arguments error naming the character or folder and a name to send
 * instead; a file whose own name is bad is refused, telling the model to pass `name` (the name
 * echoed with those characters as `\uXXXX` escapes).
 */
import path from 'node:path';
import { z } from 'zod';
import type { TurnContext } from '../../../assembly/context.js';
import { MAX_ATTACHMENT_BYTES, type AttachmentStore } from '../../../attachments/attachment-store.js';
import { attachmentNameProblem } from '../../../attachments/file-name.js';
import { MIME_TYPE, mimeTypeFor } from '../../../attachments/mime.js';
import { defineWorkerTool, textResult } from '../../../runtime/tool.js';
import { quoteForDisplay } from '../../../unsafe-chars.js';
import { labelPath, type ComputerToolDeps } from '../deps.js';
import { openInHome, verifyOpenedInside } from '../home-fs.js';
import { withHomeLock } from '../home-lock.js';
import { PathRefusedError, relativeInside, resolveInHome } from '../home.js';

export const OUTBOX_ONLY = 'reply_attachment only accepts files under ~/outbox';

const schema = z.object({
  path: z.string().min(1).describe('File to attach, under ~/outbox (e.g. outbox/report.pdf)'),
  name: z
    .string()
    .min(1)
    .max(255)
    .check((ctx) => {
      const problem = attachmentNameProblem(ctx.value);
      if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
    })
    .optional()
    .describe('File name the user sees, without folders (default: the file\'s own name)'),
  mime_type: z.string().regex(MIME_TYPE, 'mime_type must look like type/subtype, e.g. application/pdf').optional().describe('MIME type (default: from the file name)'),
});

/** The URL path of an attachment. */
export function attachmentUrl(turnId: string, attachmentId: string): string {
  return `/v1/turns/${encodeURIComponent(turnId)}/attachments/${encodeURIComponent(attachmentId)}`;
}

export function replyAttachmentTool(deps: ComputerToolDeps, store: AttachmentStore) {
  return defineWorkerTool({
    name: 'reply_attachment',
    description: 'Attach a file to your reply so the user can download it. The file must be in the outbox folder of your home (~/outbox/): write or copy it there first. The file is copied now; later changes to it do not change the attachment (max 50 MiB).',
    schema,
    executionMode: 'sequential',
    describeActivity: (p) => `Attaching ${labelPath(p.path)}`,
    describeCompletedActivity: (p) => `Attached ${labelPath(p.path)}`,
    execute: (p, ctx) =>
      withHomeLock(deps, 'shared', ctx, async () => {
        const turn = ctx.turn as TurnContext;
        let target;
        try {
          target = await resolveInHome(deps.home, p.path);
        } catch (err) {
          if (err instanceof PathRefusedError) throw new Error(OUTBOX_ONLY);
          throw err;
        }
        const outbox = path.join(target.home, 'outbox');
        const rel = relativeInside(outbox, target.real);
        if (rel === null || rel === '' || rel === '.') throw new Error(OUTBOX_ONLY);
        if (!target.exists) throw new Error(`${p.path} does not exist (put the file under ~/outbox first)`);
        let file;
        try {
          file = await openInHome(target, 'read', p.path);
        } catch (err) {
          if (err instanceof PathRefusedError) throw new Error(OUTBOX_ONLY);
          throw err;
        }
        try {
          await verifyOpenedInside(outbox, file.handle, p.path).catch(() => {
            throw new Error(OUTBOX_ONLY);
          });
          if (file.stat.size > MAX_ATTACHMENT_BYTES) throw new Error(`${p.path} is larger than ${MAX_ATTACHMENT_BYTES} bytes (50 MiB), the attachment limit`);
          const name = p.name ?? path.basename(target.real);
          const nameProblem = p.name === undefined ? attachmentNameProblem(name) : undefined;
          if (nameProblem) throw new Error(`the file's own name ${quoteForDisplay(name)}, the attachment's default name, ${nameProblem} as the name parameter (or rename the file)`);
          const a = await store.save(turn.turnId, file.handle, { name, mime_type: p.mime_type ?? mimeTypeFor(name), size: file.stat.size, source: target.relative });
          const url = attachmentUrl(turn.turnId, a.attachment_id);
          return textResult(
            `Attached ${a.name} (${a.mime_type}, ${a.size} bytes) as ${a.attachment_id}; the user can download it from the reply.`,
            { attachment_id: a.attachment_id, name: a.name, mime_type: a.mime_type, size: a.size, url },
            { presentation: [{ type: 'attachment', attachment_id: a.attachment_id, name: a.name, mime_type: a.mime_type, size: a.size, url }] },
          );
        } finally {
          await file.handle.close();
        }
      }),
  });
}
