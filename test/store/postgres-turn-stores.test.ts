/** The turn-side store contract suite (turns, queue, checkpoints) against a real Postgres, and finishing a record with its terminal event. */
import { expect, it } from 'vitest';
import { PgCheckpointStore } from '../../src/store/postgres/pg-checkpoint-store.js';
import { PgTurnQueue } from '../../src/store/postgres/pg-turn-queue.js';
import { PgEventLog } from '../../src/store/postgres/pg-event-log.js';
import { PgTurnStore } from '../../src/store/postgres/pg-turn-store.js';
import type { TurnOutcome } from '../../src/store/turn-store.js';
import type { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { describePostgres, migratedSchema } from '../support/postgres.js';
import { describeTurnStoreContract, newTurn } from './contracts/turn-stores.contract.js';

describePostgres('postgres turn stores', () => {
  describeTurnStoreContract('postgres', async () => {
    const { db } = await migratedSchema();
    return {
      store: new PgTurnStore(db),
      queue: new PgTurnQueue(db),
      checkpoints: new PgCheckpointStore(db),
      async corruptCheckpoint(turnId, text) {
        await db.query('UPDATE turn_checkpoints SET state = $1 WHERE turn_id = $2', [text, turnId]);
      },
      close: () => db.close(),
    };
  });
});

const outcome = (): TurnOutcome => ({ status: 'completed', completed_at: new Date().toISOString(), output_text: 'done', stop_reason: 'stop', steps: 1, usage: { input_tokens: 1, output_tokens: 2 }, error: null, transcript: null });

/** A fresh schema with a turn log, a turn store joined to it and one inserted turn; closed after `fn`. */
async function withTurn(fn: (s: { db: PgDatabase; log: PgEventLog<{ type: string }>; store: PgTurnStore; id: string }) => Promise<void>): Promise<void> {
  const { db } = await migratedSchema();
  try {
    const log = new PgEventLog<{ type: string }>(db);
    const store = new PgTurnStore(db, log);
    const t = newTurn();
    await store.insert(t);
    await fn({ db, log, store, id: t.id });
  } finally {
    await db.close();
  }
}

describePostgres('a turn record finished with its terminal event (Postgres: one transaction)', () => {
  it('commits the record with the event appended right after it', async () => {
    await withTurn(async ({ log, store, id }) => {
      await log.append(id, { type: 'turn.started' });
      const finished = store.finishInBatch(id, outcome());
      const terminal = log.append(id, { type: 'turn.completed' });
      expect(await finished).toBe(true);
      expect((await terminal).seq).toBe(2);
      expect(await store.get(id)).toMatchObject({ status: 'completed', output_text: 'done' });
      // A second finish changes nothing, and its event is still stored.
      const again = store.finishInBatch(id, { ...outcome(), output_text: 'other' });
      await log.append(id, { type: 'x' });
      expect(await again).toBe(false);
      expect((await store.get(id))!.output_text).toBe('done');
    });
  });

  it('stores neither when the event cannot be stored: the record stays unfinished and the turn can resume', async () => {
    await withTurn(async ({ db, log, store, id }) => {
      // The terminal event's INSERT fails inside the transaction (as a crash before COMMIT would end it).
      await db.query(`CREATE FUNCTION refuse_terminal() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF NEW.type = 'turn.completed' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`);
      await db.query('CREATE TRIGGER refuse_terminal BEFORE INSERT ON event_log FOR EACH ROW EXECUTE FUNCTION refuse_terminal()');
      const finished = store.finishInBatch(id, outcome());
      const terminal = log.append(id, { type: 'turn.completed' });
      await expect(terminal).rejects.toThrow(/refused/);
      await expect(finished).rejects.toThrow(/refused/);
      expect((await store.get(id))!.status).toBe('queued');
      expect(await log.lastSeq(id)).toBe(0);
    });
  });

  it('keeps the events when the record write fails alone (its own savepoint), and runs a write no event claimed by itself', async () => {
    await withTurn(async ({ log, store, id }) => {
      const failing = log.joinNext(id, async (tx) => void (await tx.query('SELECT no_such_column FROM turns')));
      const event = log.append(id, { type: 'turn.completed' });
      await expect(failing).rejects.toThrow(/no_such_column/);
      expect((await event).seq).toBe(1);
      // No append follows: the write runs alone, in its own transaction.
      expect(await store.finishInBatch(id, outcome())).toBe(true);
      expect((await store.get(id))!.status).toBe('completed');
      expect(await log.lastSeq(id)).toBe(1);
    });
  });
});
