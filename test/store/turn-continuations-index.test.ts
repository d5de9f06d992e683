/**
 * The turns continuing a turn (`previous_turn_id`) are found through the expression index
 * `turns_previous` on both engines — the query a double-text runs once per turn of the chain it
 * walks — not by scanning every turn of the agent: the plan of the store's own query names the
 * index (SQLite `EXPLAIN QUERY PLAN`; Postgres `EXPLAIN` on a real server), and the answers stay
 * right.
 */
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { PG_CONTINUATIONS_SQL, PgTurnStore } from '../../src/store/postgres/pg-turn-store.js';
import { CONTINUATIONS_SQL, SqliteTurnStore } from '../../src/store/sqlite-turn-store.js';
import type { TurnStore } from '../../src/store/turn-store.js';
import { describePostgres, migratedSchema } from '../support/postgres.js';
import { newTurn } from './contracts/turn-stores.contract.js';

/** 300 turns of agent `a` in chains of three, plus other agents' turns naming the same parents. */
async function chains(store: TurnStore): Promise<{ root: string; child: string; grandchild: string }> {
  let last = { root: '', child: '', grandchild: '' };
  for (let i = 0; i < 100; i++) {
    const root = newTurn();
    const child = newTurn({ request: { input: 'more', agent_id: 'a', previous_turn_id: root.id } });
    const grandchild = newTurn({ request: { input: 'more', agent_id: 'a', previous_turn_id: child.id } });
    for (const t of [root, child, grandchild]) await store.insert(t);
    await store.insert(newTurn({ agent_id: 'b', request: { input: 'x', agent_id: 'b', previous_turn_id: root.id } }));
    last = { root: root.id, child: child.id, grandchild: grandchild.id };
  }
  return last;
}

describe('continuations on SQLite', () => {
  it('are read through the turns_previous index, and the right ones', async () => {
    const db = openDatabase(':memory:');
    try {
      const store = new SqliteTurnStore(db);
      const { root, child, grandchild } = await chains(store);
      expect(await store.continuations(root, 'a')).toEqual([child]);
      expect(await store.continuations(child, 'a')).toEqual([grandchild]);
      expect(await store.continuations(grandchild, 'a')).toEqual([]);
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${CONTINUATIONS_SQL}`).all('a', root) as { detail: string }[]).map((r) => r.detail).join('\n');
      expect(plan).toMatch(/SEARCH turns USING (COVERING )?INDEX turns_previous/);
      expect(plan).not.toMatch(/SCAN turns/);
    } finally {
      db.close();
    }
  });
});

describePostgres('continuations on Postgres', () => {
  it('are read through the turns_previous index of migration 016, and the right ones', async () => {
    const { db } = await migratedSchema();
    try {
      const store = new PgTurnStore(db);
      const { root, child, grandchild } = await chains(store);
      expect(await store.continuations(root, 'a')).toEqual([child]);
      expect(await store.continuations(child, 'a')).toEqual([grandchild]);
      await db.query('ANALYZE turns');
      const explain = PG_CONTINUATIONS_SQL.replace('$1', `'a'`).replace('$2', `'${root}'`);
      const plan = (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${explain}`)).rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toContain('turns_previous');
      expect(plan).not.toMatch(/Seq Scan/);
    } finally {
      await db.close();
    }
  });
});
