/** The steering-message store contract on SQLite (in-memory) and on a real Postgres. */
import { openDatabase } from '../../src/store/database.js';
import { PgTurnInputStore } from '../../src/store/postgres/pg-turn-input-store.js';
import { SqliteTurnInputStore } from '../../src/store/sqlite-turn-input-store.js';
import { describeEachEngine } from '../support/store-engines.js';
import { migratedSchema } from '../support/postgres.js';
import { turnInputsContract } from './contracts/turn-inputs.contract.js';

describeEachEngine('TurnInputStore contract', (engine) => {
  turnInputsContract(async () => {
    if (engine === 'sqlite') {
      const db = openDatabase(':memory:');
      return {
        store: new SqliteTurnInputStore(db),
        close: async () => {
          db.close();
        },
      };
    }
    const { db } = await migratedSchema();
    return { store: new PgTurnInputStore(db), close: () => db.close() };
  });
});
