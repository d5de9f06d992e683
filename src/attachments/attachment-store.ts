/**
 * Reply attachments: files a turn hands to the user (`reply_attachment`), kept as snapshots and
 * served by `GET /v1/turns/{id}/attachments/{attachment_id}`. A snapshot never changes: later
 * edits of the source file do not reach it. Two stores behind {@link AttachmentStore}:
 * - {@link FileAttachmentStore} (alone, SQLite): `DATA_DIR/attachments/<turn_id>/<attachment_id>`
 *   (the bytes) with `<attachment_id>.json` (the metadata) beside them;
 * - the Postgres store (with DATABASE_URL, src/store/postgres/pg-attachment-store.ts): the bytes in
 *   the database, so any instance serves a download.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Max size of one attachment, bytes. */
export const MAX_ATTACHMENT_BYTES = 50 * 1024 * 1024;
/** Attachment ids: `att_` + 32 hex digits. */
export const ATTACHMENT_ID = /^att_[0-9a-f]{32}$/;
/** Turn ids as stored (UUIDv7 or similar): letters, digits, `-`. */
export const TURN_ID = /^[A-Za-z0-9-]{1,100}$/;

/** A new attachment id (`att_` + 32 hex digits). */
export function newAttachmentId(): string {
  return `att_${randomUUID().replace(/-/g, '')}`;
}

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

/** What {@link AttachmentStore.save} is told about the file besides its bytes. */
export type AttachmentMeta = Omit<Attachment, 'attachment_id' | 'turn_id' | 'created_at'>;

/** Where reply attachments are kept. Errors of the storage (disk, database) are thrown as they come. */
export interface AttachmentStore {
  /**
   * Copy `meta.size` bytes (≤ MAX_ATTACHMENT_BYTES, 50 MiB) from the start of the open `source`
   * into a new attachment of `turnId`; it is visible to {@link get} only once complete.
   * @throws Error for a turn id that is not `[A-Za-z0-9-]{1,100}`.
   */
  save(turnId: string, source: FileHandle, meta: AttachmentMeta): Promise<Attachment>;
  /** The attachment's metadata, or undefined when `turnId` has no attachment `id` (also for ids of the wrong form). */
  get(turnId: string, id: string): Promise<Attachment | undefined>;
  /** A stream of the attachment's bytes (call after {@link get} found it). */
  open(a: Attachment): Readable;
}

/** Attachments as files under one folder (DATA_DIR/attachments) of this instance. */
export class FileAttachmentStore implements AttachmentStore {
  constructor(private readonly root: string) {}

  private dir(turnId: string): string {
    if (!TURN_ID.test(turnId)) throw new Error(`invalid turn id for an attachment: ${turnId}`);
    return path.join(this.root, turnId);
  }

  /** See {@link AttachmentStore.save}: the copy is written to a temporary name and renamed when complete. */
  async save(turnId: string, source: FileHandle, meta: AttachmentMeta): Promise<Attachment> {
    const dir = this.dir(turnId);
    await mkdir(dir, { recursive: true });
    const id = newAttachmentId();
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

  async get(turnId: string, id: string): Promise<Attachment | undefined> {
    if (!ATTACHMENT_ID.test(id) || !TURN_ID.test(turnId)) return undefined;
    try {
      return JSON.parse(await readFile(path.join(this.dir(turnId), `${id}.json`), 'utf8')) as Attachment;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  open(a: Attachment): Readable {
    return createReadStream(path.join(this.dir(a.turn_id), a.attachment_id));
  }
}
