/**
 * Reply attachments shared by every instance (src/store/postgres/pg-attachment-store.ts): the
 * metadata in `reply_attachments`, the bytes in `reply_attachment_chunks` as pieces of at most
 * 1 MiB (`n` = 0, 1, …), so a download streams piece by piece instead of holding up to 50 MiB.
 */
import type { Migration } from '../migrate.js';

export const replyAttachments: Migration = {
  version: 18,
  name: 'reply_attachments',
  sql: `
    CREATE TABLE reply_attachments (
      attachment_id TEXT PRIMARY KEY,
      turn_id TEXT NOT NULL,
      name TEXT NOT NULL,
      mime_type TEXT NOT NULL,
      size BIGINT NOT NULL,
      source TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE TABLE reply_attachment_chunks (
      attachment_id TEXT NOT NULL REFERENCES reply_attachments (attachment_id) ON DELETE CASCADE,
      n INTEGER NOT NULL,
      data BYTEA NOT NULL,
      PRIMARY KEY (attachment_id, n)
    );`,
};
