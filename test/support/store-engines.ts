/**
 * The store engines the contract suites run against: every suite written with
 * {@link describeEachEngine} runs once on SQLite (a fresh in-memory database per `open()`) and once
 * on a real Postgres (a fresh migrated schema per `open()`, see ./postgres.ts: fails in CI without
 * TEST_DATABASE_URL, skipped locally).
 */
import { describe } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { postgresStores, sqliteStores, type ControlPlaneStores } from '../../src/store/control-plane.js';
import { describePostgres, migratedSchema } from './postgres.js';

export type EngineName = 'sqlite' | 'postgres';

/** Opened stores plus `close()` releasing the database (the SQLite handle or the pool). */
export type OpenStores = ControlPlaneStores & { close(): Promise<void> };

/** Open a fresh, empty set of stores on `engine`. */
export async function openStores(engine: EngineName): Promise<OpenStores> {
  if (engine === 'sqlite') {
    const db = openDatabase(':memory:');
    return {
      ...sqliteStores(db),
      close: async () => {
        db.close();
      },
    };
  }
  const { db } = await migratedSchema();
  return { ...postgresStores(db), close: () => db.close() };
}

/** `describe(title)` once per engine; `body` gets the engine's name. */
export function describeEachEngine(title: string, body: (engine: EngineName) => void): void {
  describe(`${title} [sqlite]`, () => body('sqlite'));
  describePostgres(`${title} [postgres]`, () => body('postgres'));
}
