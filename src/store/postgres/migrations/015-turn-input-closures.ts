/**
 * Closed steering queues (src/turns/inputs/input-store.ts `close`): a turn that ends closes its
 * queue before its terminal event; an add to a closed queue is refused. Same table as SQLite.
 */
import type { Migration } from '../migrate.js';

export const turnInputClosures: Migration = {
  version: 15,
  name: 'turn_input_closures',
  sql: `
    CREATE TABLE turn_input_closures (
      turn_id TEXT PRIMARY KEY,
      closed_at TEXT NOT NULL
    );`,
};
