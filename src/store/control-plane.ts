/**
 * The control-plane stores (schedules, workflows, brain pages, idempotency keys, background jobs) on the engine DATABASE_URL picks:
 * unset → SQLite on the service's own handle (DATA_DIR/service.db); `postgres://…` → Postgres
 * through one `pg` pool of DATABASE_POOL_MAX connections, migrated at {@link ControlPlaneStores.open}
 * (src/store/postgres/migrate.ts). The turn-side ports on the same engine: ./turn-engine.ts.
 */
import { SqliteBrainStore } from '../brain/sqlite-brain-store.js';
import type { BrainStore } from '../brain/brain-store.js';
import type { Config } from '../config.js';
import { SqliteScheduleStore } from '../schedules/sqlite-store.js';
import type { ScheduleStore } from '../schedules/store.js';
import { SqliteWorkflowStore } from '../workflows/sqlite-workflow-store.js';
import type { WorkflowStore } from '../workflows/workflow-store.js';
import type { JobStore } from '../jobs/job-store.js';
import { SqliteJobStore } from '../jobs/sqlite-job-store.js';
import { PgJobStore } from './postgres/pg-job-store.js';
import type { Database } from './database.js';
import { IdempotencyKeys, SqliteIdempotencyKeyRows } from './idempotency-keys.js';
import { migrate, type MigrateResult } from './postgres/migrate.js';
import { MIGRATIONS } from './postgres/migrations/index.js';
import { PgBrainStore } from './postgres/pg-brain-store.js';
import { PgDatabase } from './postgres/pg-database.js';
import { PgIdempotencyKeyRows } from './postgres/pg-idempotency-keys.js';
import { PgWebhookStore } from './postgres/pg-webhook-store.js';
import { SqliteWebhookStore, type WebhookStore } from '../webhooks/store.js';
import { PgScheduleStore } from './postgres/pg-schedule-store.js';
import { PgWorkflowStore } from './postgres/pg-workflow-store.js';
import { DatabaseUnavailableError } from './postgres/unavailable.js';

export interface ControlPlaneStores {
  engine: 'sqlite' | 'postgres';
  schedules: ScheduleStore;
  workflows: WorkflowStore;
  brain: BrainStore;
  /** Idempotency keys of resources without a key column of their own (workflows). */
  idempotency: IdempotencyKeys;
  /** Webhook deliveries and subscriptions (shared by every instance on Postgres). */
  webhooks: WebhookStore;
  /** Background jobs (src/jobs/). */
  jobs: JobStore;
  /** The Postgres handle (undefined on SQLite): for stores added later on the same pool. */
  pg?: PgDatabase;
  /**
   * Make the stores usable: Postgres applies pending migrations (one transaction, advisory lock).
   * @throws SchemaTooNewError (refuse to start), DatabaseUnavailableError (server unreachable).
   */
  open(): Promise<MigrateResult | undefined>;
  /** One round trip to the database; throws DatabaseUnavailableError when it does not answer. */
  ping(): Promise<void>;
  /** Release the pool (the SQLite handle is closed by its owner). */
  close(): Promise<void>;
}

/** The stores on the shared SQLite handle (tables created now). */
export function sqliteStores(db: Database): ControlPlaneStores {
  return {
    engine: 'sqlite',
    schedules: new SqliteScheduleStore(db),
    workflows: new SqliteWorkflowStore(db),
    brain: new SqliteBrainStore(db),
    idempotency: new IdempotencyKeys(new SqliteIdempotencyKeyRows(db)),
    webhooks: new SqliteWebhookStore(db),
    jobs: new SqliteJobStore(db),
    open: async () => undefined,
    ping: async () => {
      try {
        db.prepare('SELECT 1').get();
      } catch (err) {
        throw new DatabaseUnavailableError(err);
      }
    },
    close: async () => undefined,
  };
}

/** The stores on a Postgres pool (call `open()` before use). */
export function postgresStores(pg: PgDatabase): ControlPlaneStores {
  return {
    engine: 'postgres',
    schedules: new PgScheduleStore(pg),
    workflows: new PgWorkflowStore(pg),
    brain: new PgBrainStore(pg),
    idempotency: new IdempotencyKeys(new PgIdempotencyKeyRows(pg)),
    webhooks: new PgWebhookStore(pg),
    jobs: new PgJobStore(pg),
    pg,
    open: () => migrate(pg, MIGRATIONS),
    ping: () => pg.ping(),
    close: () => pg.close(),
  };
}

/** The stores `config` asks for. `onIdleError` hears about dropped idle Postgres connections. */
export function controlPlaneStores(
  config: Pick<Config, 'DATABASE_URL' | 'DATABASE_POOL_MAX' | 'DATABASE_STATEMENT_TIMEOUT_MS'>,
  db: Database,
  onIdleError?: (err: Error) => void,
): ControlPlaneStores {
  if (config.DATABASE_URL === undefined) return sqliteStores(db);
  return postgresStores(
    new PgDatabase({ url: config.DATABASE_URL, max: config.DATABASE_POOL_MAX, statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS, onIdleError }),
  );
}
