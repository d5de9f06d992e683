/** The turn-side store contract suite (turns, queue, checkpoints) against a real Postgres. */
import { PgCheckpointStore } from '../../src/store/postgres/pg-checkpoint-store.js';
import { PgTurnQueue } from '../../src/store/postgres/pg-turn-queue.js';
import { PgTurnStore } from '../../src/store/postgres/pg-turn-store.js';
import { describePostgres, migratedSchema } from '../support/postgres.js';
import { describeTurnStoreContract } from './contracts/turn-stores.contract.js';

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
