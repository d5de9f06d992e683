/** The turn-side store contract suite against SQLite (in-memory), and finishing a record in the event batch. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_BATCH, SqliteEventLog } from '../../src/store/sqlite-event-log.js';
import type { TurnOutcome } from '../../src/store/turn-store.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteCheckpointStore } from '../../src/store/sqlite-checkpoint-store.js';
import { SqliteTurnQueue } from '../../src/store/sqlite-turn-queue.js';
import { SqliteTurnStore } from '../../src/store/sqlite-turn-store.js';
import { describeTurnStoreContract, newTurn } from './contracts/turn-stores.contract.js';

describeTurnStoreContract('sqlite', async () => {
  const db = openDatabase(':memory:');
  const store = new SqliteTurnStore(db);
  return {
    store,
    queue: new SqliteTurnQueue(db),
    checkpoints: new SqliteCheckpointStore(db),
    async corruptCheckpoint(turnId, text) {
      db.prepare('UPDATE turn_checkpoints SET state = ? WHERE turn_id = ?').run(text, turnId);
    },
    async close() {
      db.close();
    },
  };
});

describe('a turn record finished in the event batch (SQLite: store and log on one database)', () => {
  it('is committed with the terminal event queued right after it, not before: both or neither', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'turn-finish-'));
    const [writer, reader] = [openDatabase(dir, { exclusive: false }), openDatabase(dir, { exclusive: false })];
    try {
      const log = new SqliteEventLog<{ type: string }>(writer);
      const store = new SqliteTurnStore(writer, log);
      const other = new SqliteTurnStore(reader);
      const t = newTurn();
      await store.insert(t);
      const outcome: TurnOutcome = { status: 'completed', completed_at: new Date().toISOString(), output_text: 'done', stop_reason: 'stop', steps: 1, usage: { input_tokens: 1, output_tokens: 2 }, error: null, transcript: null };
      const finished = store.finishInBatch(t.id, outcome);
      const terminal = log.appendQueued(t.id, { type: 'turn.completed' });
      // Queued, not yet committed: another connection sees neither the finished record nor the event.
      expect((await other.get(t.id))!.status).toBe('queued');
      expect(reader.prepare('SELECT COUNT(*) FROM event_log WHERE stream_id = ?').pluck().get(t.id)).toBe(0);
      expect(await finished).toBe(true);
      await terminal.stored;
      expect((await other.get(t.id))!).toMatchObject({ status: 'completed', output_text: 'done' });
      expect(reader.prepare('SELECT COUNT(*) FROM event_log WHERE stream_id = ?').pluck().get(t.id)).toBe(1);
      // A second finish changes nothing (only a turn not finished yet changes).
      const again = store.finishInBatch(t.id, { ...outcome, output_text: 'other' });
      log.flush();
      expect(await again).toBe(false);
    } finally {
      writer.close();
      reader.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('joins a full batch without flushing it, so the terminal event after it still shares its commit', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'turn-finish-'));
    const [writer, reader] = [openDatabase(dir, { exclusive: false }), openDatabase(dir, { exclusive: false })];
    try {
      const log = new SqliteEventLog<{ type: string }>(writer);
      const store = new SqliteTurnStore(writer, log);
      const t = newTurn();
      await store.insert(t);
      for (let i = 0; i < MAX_BATCH - 1; i++) log.appendQueued('busy', { type: 'x' });
      const finished = store.finishInBatch(t.id, { status: 'completed', completed_at: new Date().toISOString(), output_text: 'done', stop_reason: 'stop', steps: 1, usage: null, error: null, transcript: null });
      expect(reader.prepare('SELECT status FROM turns WHERE id = ?').pluck().get(t.id)).toBe('queued'); // the join did not flush
      const terminal = log.appendQueued(t.id, { type: 'turn.completed' }); // reaches the batch size: one commit for all
      expect(reader.prepare('SELECT status FROM turns WHERE id = ?').pluck().get(t.id)).toBe('completed');
      expect(reader.prepare('SELECT COUNT(*) FROM event_log WHERE stream_id = ?').pluck().get(t.id)).toBe(1);
      await Promise.all([finished, terminal.stored]);
    } finally {
      writer.close();
      reader.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
