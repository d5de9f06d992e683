/**
 * Reply attachments: files a turn hands to the user (`reply_attachment`), kept as snapshots under
 * `DATA_DIR/attachments/<turn_id>/<attachment_id>` (the bytes) with `<attachment_id>.json` (the
 * metadata) beside them, served by `GET /v1/turns/{id}/attachments/{attachment_id}`. A snapshot
 * never changes: later edits of the source file do not reach it.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

/** Max size of one attachment, bytes. */
export const MAX_ATTACHMENT_BYTES = 50 * 1024 * 1024;
/** Attachment ids: `att_` + 32 hex digits. */
export const ATTACHMENT_ID = /^att_[0-9a-f]{32}$/;
/** Turn ids as stored (UUIDv7 or similar): letters, digits, `-`. */
const TURN_ID = /^[A-Za-z0-9-]{1,100}$/;

export interface Attachment {
  attachment_id: string;
  turn_id: string;
  /** File name shown to the user (download name). */
  name: string;
  mime_type: string;
  /** Bytes. */
  size: number;
  /** ISO 8601. */
  created_at: string;
  /** Home-relative path of the file it was copied from. */
  source: string;
}

export class AttachmentStore {
  constructor(private readonly root: string) {}

  private dir(turnId: string): string {
    if (!TURN_ID.test(turnId)) throw new Error(`invalid turn id for an attachment: ${turnId}`);
    return path.join(this.root, turnId);
  }

  /**
   * Copy `size` bytes from the open `source` into a new attachment of `turnId`.
   * The copy is written to a temporary name and renamed when complete.
   */
  async save(turnId: string, source: FileHandle, meta: Omit<Attachment, 'attachment_id' | 'turn_id' | 'created_at'>): Promise<Attachment> {
    const dir = this.dir(turnId);
    await mkdir(dir, { recursive: true });
    const id = `att_${randomUUID().replace(/-/g, '')}`;
    const tmp = path.join(dir, `.${id}.part`);
    try {
      await pipeline(source.createReadStream({ start: 0, end: Math.max(0, meta.size - 1), autoClose: false }), createWriteStream(tmp, { mode: 0o600 }));
      await rename(tmp, path.join(dir, id));
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    const attachment: Attachment = { attachment_id: id, turn_id: turnId, created_at: new Date().toISOString(), ...meta };
    await writeFile(path.join(dir, `${id}.json`), JSON.stringify(attachment), { mode: 0o600 });
    return attachment;
  }

  /** The attachment's metadata, or undefined when `turnId` has no attachment `id`. */
  async get(turnId: string, id: string): Promise<Attachment | undefined> {
    if (!ATTACHMENT_ID.test(id) || !TURN_ID.test(turnId)) return undefined;
    try {
      return JSON.parse(await readFile(path.join(this.dir(turnId), `${id}.json`), 'utf8')) as Attachment;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** A stream of the attachment's bytes (call after {@link get} found it). */
  open(a: Attachment): ReadStream {
    return createReadStream(path.join(this.dir(a.turn_id), a.attachment_id));
  }
}
