/**
 * Test parts for the schedules tests: a manual clock, a real database (SQLite on a temporary
 * directory, or a fresh migrated schema on the test Postgres: see test/support/store-engines.ts), a turn service that records what the scheduler asked it to start (the real one is
 * used by the HTTP/e2e tests), and a TurnContext builder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { uuidv7 } from 'uuidv7';
import type { TurnContext, TurnKind, TurnOrigin } from '../../src/assembly/context.js';
import { loadConfig, type Config, type ToolFamily } from '../../src/config.js';
import type { Clock } from '../../src/schedules/clock.js';
import { createScheduleService } from '../../src/schedules/service.js';
import { SqliteScheduleStore } from '../../src/schedules/sqlite-store.js';
import type { ScheduleStore } from '../../src/schedules/store.js';
import { PgScheduleStore } from '../../src/store/postgres/pg-schedule-store.js';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import type { ScheduleService } from '../../src/schedules/types.js';
import { openDatabase } from '../../src/store/database.js';
import type { EngineName } from '../support/store-engines.js';
import { migratedSchema } from '../support/postgres.js';
import type { CreateTurnInput, CreateTurnOptions, TurnRecord, TurnService } from '../../src/turns/turn-service-types.js';

/** Several connections on one file (as several processes would be): opened without the service's exclusive lock. */
const SHARED = { exclusive: false };

/** A clock that only moves when told. */
export class ManualClock implements Clock {
  constructor(private ms: number) {}
  static at(iso: string): ManualClock {
    return new ManualClock(Date.parse(iso));
  }
  now(): number {
    return this.ms;
  }
  set(iso: string): void {
    this.ms = Date.parse(iso);
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/**
 * Records `create` calls; honours idempotency keys like the real service (same key → same turn).
 * `failNext` makes the next create throw (a refused start).
 */
export class RecordingTurnService implements TurnService {
  readonly created: { input: CreateTurnInput; options: CreateTurnOptions; record: TurnRecord }[] = [];
  private readonly byKey = new Map<string, TurnRecord>();
  failNext: Error | undefined;

  async create(input: CreateTurnInput, options: CreateTurnOptions = {}): Promise<TurnRecord> {
    if (this.failNext) {
      const err = this.failNext;
      this.failNext = undefined;
      throw err;
    }
    if (options.idempotencyKey && this.byKey.has(options.idempotencyKey)) return this.byKey.get(options.idempotencyKey)!;
    const record: TurnRecord = {
      id: uuidv7(),
      agent_id: input.agent_id,
      status: 'queued',
      kind: options.kind ?? 'main',
      origin: options.origin ?? { type: 'api' },
      model: input.model ?? 'test-model',
      previous_turn_id: input.previous_turn_id ?? null,
      created_at: new Date().toISOString(),
      started_at: null,
      completed_at: null,
      output_text: null,
      stop_reason: null,
      steps: 0,
      usage: { input_tokens: 0, output_tokens: 0 },
      error: null,
      metadata: null,
      trace_id: null,
    };
    if (options.idempotencyKey) this.byKey.set(options.idempotencyKey, record);
    this.created.push({ input, options, record });
    return record;
  }
  /** Synchronous lookup (the schedule service's `turnStatus` is synchronous). */
  getSync(id: string): TurnRecord | undefined {
    return this.created.find((c) => c.record.id === id)?.record;
  }
  async get(id: string): Promise<TurnRecord | undefined> {
    return this.getSync(id);
  }
  async cancel(id: string): Promise<TurnRecord | undefined> {
    return this.getSync(id);
  }
  async waitForTerminal(id: string): Promise<TurnRecord> {
    return this.getSync(id)!;
  }
}

export interface ScheduleRig {
  engine: EngineName;
  dir: string;
  store: ScheduleStore;
  service: ScheduleService;
  clock: ManualClock;
  config: Config;
  turns: RecordingTurnService;
  /** A second store on the same database, as another instance would open it (closed by `close`). */
  otherStore(): ScheduleStore;
  close(): Promise<void>;
}

/**
 * The schedule store and service on a fresh database of `engine` (SQLite: a file in a fresh
 * temporary DATA_DIR; Postgres: a fresh migrated schema), with a manual clock at `startIso`.
 */
export async function scheduleRig(startIso: string, env: Record<string, string> = {}, engine: EngineName = 'sqlite'): Promise<ScheduleRig> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schedules-test-'));
  const config = loadConfig({ DATA_DIR: dir, ...env });
  const closers: (() => unknown)[] = [];
  let store: ScheduleStore;
  let otherStore: () => ScheduleStore;
  if (engine === 'sqlite') {
    const db = openDatabase(dir, SHARED);
    closers.push(() => db.close());
    store = new SqliteScheduleStore(db);
    otherStore = () => {
      const db2 = openDatabase(dir, SHARED);
      closers.push(() => db2.close());
      return new SqliteScheduleStore(db2);
    };
  } else {
    const { db, url } = await migratedSchema();
    closers.push(() => db.close());
    store = new PgScheduleStore(db);
    otherStore = () => {
      const db2 = new PgDatabase({ url, max: 4 });
      closers.push(() => db2.close());
      return new PgScheduleStore(db2);
    };
  }
  const clock = ManualClock.at(startIso);
  const turns = new RecordingTurnService();
  const service = createScheduleService({ store, clock, config, turnStatus: (id) => turns.getSync(id)?.status });
  return {
    engine,
    dir,
    store,
    service,
    clock,
    config,
    turns,
    otherStore,
    async close() {
      for (const c of closers.reverse()) await c();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A TurnContext for family/tool tests. */
export function turnContext(
  rig: Pick<ScheduleRig, 'config' | 'service'>,
  over: { kind?: TurnKind; origin?: TurnOrigin; families?: ToolFamily[]; agentId?: string; turnId?: string; withService?: boolean; brain?: boolean } = {},
): TurnContext {
  const families = over.families ?? ['todo', 'schedule'];
  const agentId = over.agentId ?? 'agent-1';
  return {
    turnId: over.turnId ?? uuidv7(),
    agentId,
    kind: over.kind ?? 'main',
    origin: over.origin ?? { type: 'api' },
    families,
    requestedTools: families,
    brain: over.brain ?? false,
    config: rig.config,
    agentHome: path.join(rig.config.DATA_DIR, 'agents', agentId, 'home'),
    signal: new AbortController().signal,
    services: over.withService === false ? {} : { schedules: rig.service },
    model: 'test-model',
  };
}
