/**
 * An expression index for the turns continuing a turn (PgTurnStore `continuations`, the query
 * `PG_CONTINUATIONS_SQL` of ../pg-turn-store.ts): a double-text walks the chain of follow-ups one query per turn,
 * each a scan of every turn of the agent without it. The SQLite database has the same index
 * (src/store/sqlite-turn-store.ts). `text::jsonb` and `->>` are immutable, so the expression can be
 * indexed; it must match the query's expression exactly. `id` last serves the query's order.
 */
import type { Migration } from '../migrate.js';

export const turnContinuationsIndex: Migration = {
  version: 16,
  name: 'turn_continuations_index',
  sql: `CREATE INDEX turns_previous ON turns (agent_id, (request::jsonb ->> 'previous_turn_id'), id);`,
};
