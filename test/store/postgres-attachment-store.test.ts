/**
 * Reply attachments on a real Postgres (PgAttachmentStore): the bytes come back exactly, for
 * sizes around the 1 MiB piece boundary, through another pool (another instance); an attachment
 * is found only under its own turn; a save that fails midway leaves nothing behind.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, expect, it } from 'vitest';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { ATTACHMENT_CHUNK_BYTES, PgAttachmentStore } from '../../src/store/postgres/pg-attachment-store.js';
import { describePostgres, migratedSchema } from '../support/postgres.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pg-attachments-'));
const pools: PgDatabase[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function saveFile(store: PgAttachmentStore, turnId: string, bytes: Buffer, size = bytes.length) {
  const file = path.join(dir, `f-${randomBytes(4).toString('hex')}`);
  writeFileSync(file, bytes);
  const handle = await open(file, 'r');
  try {
    return await store.save(turnId, handle, { name: 'report.bin', mime_type: 'application/octet-stream', size, source: 'outbox/report.bin' });
  } finally {
    await handle.close();
  }
}

describePostgres('reply attachments on Postgres', () => {
  it('stores and serves the exact bytes across the 1 MiB piece boundary, to another instance too', async () => {
    const { db, url } = await migratedSchema();
    const other = new PgDatabase({ url, max: 2 });
    pools.push(db, other);
    const [a, b] = [new PgAttachmentStore(db), new PgAttachmentStore(other)];
    for (const size of [0, 1, ATTACHMENT_CHUNK_BYTES - 1, ATTACHMENT_CHUNK_BYTES, 2 * ATTACHMENT_CHUNK_BYTES + 3]) {
      const bytes = randomBytes(size);
      const saved = await saveFile(a, 'turn-1', bytes);
      expect(saved).toMatchObject({ turn_id: 'turn-1', name: 'report.bin', mime_type: 'application/octet-stream', size, source: 'outbox/report.bin' });
      expect(saved.attachment_id).toMatch(/^att_[0-9a-f]{32}$/);
      const found = await b.get('turn-1', saved.attachment_id);
      expect(found).toEqual(saved);
      expect((await buffer(b.open(found!))).equals(bytes), `size ${size}`).toBe(true);
      const { rows } = await db.query<{ pieces: number }>('SELECT count(*)::int AS pieces FROM reply_attachment_chunks WHERE attachment_id = $1', [saved.attachment_id]);
      expect(rows[0].pieces).toBe(Math.ceil(size / ATTACHMENT_CHUNK_BYTES));
    }
  });

  it('finds an attachment only under its own turn, and records the bytes copied when the file is shorter than told', async () => {
    const { db } = await migratedSchema();
    pools.push(db);
    const store = new PgAttachmentStore(db);
    const saved = await saveFile(store, 'turn-2', Buffer.from('short'), 10);
    expect(saved.size).toBe(5);
    expect(await store.get('turn-2', saved.attachment_id)).toMatchObject({ size: 5 });
    expect(await store.get('turn-3', saved.attachment_id)).toBeUndefined();
    expect(await store.get('turn-2', 'att_nope')).toBeUndefined();
    expect((await buffer(store.open(saved))).toString()).toBe('short');
  });

  it('leaves nothing behind when the copy fails midway', async () => {
    const { db } = await migratedSchema();
    pools.push(db);
    const store = new PgAttachmentStore(db);
    const file = path.join(dir, 'closing');
    writeFileSync(file, randomBytes(ATTACHMENT_CHUNK_BYTES + 10));
    const handle = await open(file, 'r');
    // The handle closes after the first piece is read: the second read fails.
    const read = handle.read.bind(handle);
    let reads = 0;
    handle.read = (async (...args: Parameters<typeof handle.read>) => {
      if (reads++ === 1) await handle.close();
      return read(...args);
    }) as typeof handle.read;
    await expect(store.save('turn-4', handle, { name: 'x', mime_type: 'text/plain', size: ATTACHMENT_CHUNK_BYTES + 10, source: 'outbox/x' })).rejects.toThrow();
    const { rows } = await db.query<{ n: number }>('SELECT (SELECT count(*) FROM reply_attachments)::int + (SELECT count(*) FROM reply_attachment_chunks)::int AS n');
    expect(rows[0].n).toBe(0);
  });
});
