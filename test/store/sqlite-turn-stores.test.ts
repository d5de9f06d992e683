/** The turn-side store contract suite against SQLite (in-memory). */
import { openDatabase } from '../../src/store/database.js';
import { SqliteCheckpointStore } from '../../src/store/sqlite-checkpoint-store.js';
import { SqliteTurnQueue } from '../../src/store/sqlite-turn-queue.js';
import { SqliteTurnStore } from '../../src/store/sqlite-turn-store.js';
import { describeTurnStoreContract } from './contracts/turn-stores.contract.js';

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
