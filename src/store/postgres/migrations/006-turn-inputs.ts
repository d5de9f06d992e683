/**
 * Steering messages of turns (src/turns/inputs/input-store.ts): one row per message, `seq` per
 * turn from 1; `applied_at` set once its `input.applied` event was stored. Same columns as SQLite.
 */
import type { Migration } from '../migrate.js';

export const turnInputs: Migration = {
  version: 6,
  name: 'turn_inputs',
  sql: `
    CREATE TABLE turn_inputs (
      turn_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      id TEXT NOT NULL UNIQUE,
      content TEXT NOT NULL,
      source TEXT NOT NULL,
      created_at TEXT NOT NULL,
      applied_at TEXT,
      PRIMARY KEY (turn_id, seq)
    );`,
};
