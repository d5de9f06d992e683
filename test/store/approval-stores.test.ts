/** The approval store contract suite against SQLite (in-memory) and a real Postgres. */
import { openDatabase } from '../../src/store/database.js';
import { PgApprovalStore } from '../../src/store/postgres/pg-approval-store.js';
import { PgTurnStore } from '../../src/store/postgres/pg-turn-store.js';
import { SqliteApprovalStore } from '../../src/store/sqlite-approval-store.js';
import { SqliteTurnStore } from '../../src/store/sqlite-turn-store.js';
import { describePostgres, migratedSchema } from '../support/postgres.js';
import { describeApprovalStoreContract } from './contracts/approval-store.contract.js';

describeApprovalStoreContract('sqlite', async () => {
  const db = openDatabase(':memory:');
  const turns = new SqliteTurnStore(db);
  return { turns, approvals: new SqliteApprovalStore(db), close: async () => { db.close(); } };
});

describePostgres('postgres approval store', () => {
  describeApprovalStoreContract('postgres', async () => {
    const { db } = await migratedSchema();
    return { turns: new PgTurnStore(db), approvals: new PgApprovalStore(db), close: () => db.close() };
  });
});
