/**
 * Reply attachments on Postgres (tables of migration 18), so any instance serves a download: the
 * metadata in `reply_attachments`, the bytes in `reply_attachment_chunks` as pieces of
 * {@link ATTACHMENT_CHUNK_BYTES} (`n` = 0, 1, …). A save copies the file piece by piece inside
 * one transaction (the attachment appears whole or not at all); a download reads one piece per
 * query as the client takes them, so neither side holds more than a piece in memory. The 50 MiB
 * cap (MAX_ATTACHMENT_BYTES) is the caller's, as with files. Connection failures surface as
 * DatabaseUnavailableError (HTTP 503 `database_unavailable`).
 */
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { ATTACHMENT_ID, newAttachmentId, TURN_ID, type Attachment, type AttachmentMeta, type AttachmentStore } from '../../attachments/attachment-store.js';
import type { PgDatabase } from './pg-database.js';

/** Bytes per stored piece of an attachment (1 MiB). */
export const ATTACHMENT_CHUNK_BYTES = 1024 * 1024;

const COLUMNS = 'attachment_id, turn_id, name, mime_type, size, source, created_at';

export class PgAttachmentStore implements AttachmentStore {
  constructor(private readonly db: PgDatabase) {}

  /** See {@link AttachmentStore.save}; `size` of the result is the bytes actually copied (less if the file shrank meanwhile). */
  async save(turnId: string, source: FileHandle, meta: AttachmentMeta): Promise<Attachment> {
    if (!TURN_ID.test(turnId)) throw new Error(`invalid turn id for an attachment: ${turnId}`);
    const attachment: Attachment = { attachment_id: newAttachmentId(), turn_id: turnId, created_at: new Date().toISOString(), ...meta };
    return this.db.transaction(async (tx) => {
      await tx.query(`INSERT INTO reply_attachments (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
        attachment.attachment_id,
        turnId,
        attachment.name,
        attachment.mime_type,
        attachment.size,
        attachment.source,
        attachment.created_at,
      ]);
      let copied = 0;
      for (let n = 0; copied < meta.size; n++) {
        const want = Math.min(ATTACHMENT_CHUNK_BYTES, meta.size - copied);
        const buffer = Buffer.alloc(want);
        let got = 0;
        while (got < want) {
          const { bytesRead } = await source.read(buffer, got, want - got, copied + got);
          if (bytesRead === 0) break;
          got += bytesRead;
        }
        if (got === 0) break;
        await tx.query('INSERT INTO reply_attachment_chunks (attachment_id, n, data) VALUES ($1, $2, $3)', [attachment.attachment_id, n, buffer.subarray(0, got)]);
        copied += got;
        if (got < want) break;
      }
      if (copied !== meta.size) {
        attachment.size = copied;
        await tx.query('UPDATE reply_attachments SET size = $2 WHERE attachment_id = $1', [attachment.attachment_id, copied]);
      }
      return attachment;
    });
  }

  async get(turnId: string, id: string): Promise<Attachment | undefined> {
    if (!ATTACHMENT_ID.test(id) || !TURN_ID.test(turnId)) return undefined;
    const { rows } = await this.db.query<Attachment>(`SELECT ${COLUMNS} FROM reply_attachments WHERE attachment_id = $1 AND turn_id = $2`, [id, turnId]);
    return rows[0];
  }

  open(a: Attachment): Readable {
    const db = this.db;
    return Readable.from(
      (async function* pieces() {
        for (let n = 0; ; n++) {
          const { rows } = await db.query<{ data: Buffer }>('SELECT data FROM reply_attachment_chunks WHERE attachment_id = $1 AND n = $2', [a.attachment_id, n]);
          if (rows.length === 0) return;
          yield rows[0].data;
        }
      })(),
      { objectMode: false },
    );
  }
}
