/**
 * The turn-side ports — turn store, turn queue, checkpoints, steering inputs, and the event logs of
 * turns, workflows and background jobs with their notifiers — on the engine DATABASE_URL picks:
 * - unset: SQLite on the service's handle (DATA_DIR/service.db), in-process wake-ups;
 * - `postgres://…`: the Postgres implementations (src/store/postgres/) on the control-plane pool,
 *   with LISTEN/NOTIFY wake-ups ({@link PgEventNotifier}) so a subscriber on any instance follows
 *   a turn running on another; the three logs' notifiers share ONE LISTEN connection
 *   ({@link PgListenConnection}). Tables come from the migrations the control-plane stores apply.
 */
import { TERMINAL_EVENT_TYPES, type TurnEvent } from '../runtime/events.js';
import type { TurnTrace } from '../telemetry/trace-context.js';
import { WORKFLOW_TERMINAL_EVENT_TYPES, type WorkflowEvent } from '../workflows/events.js';
import type { ApprovalStore } from './approval-store.js';
import { JOB_TERMINAL_EVENT_TYPES, type JobEvent } from '../jobs/events.js';
import type { TurnCheckpointStore } from './checkpoint-store.js';
import type { ControlPlaneStores } from './control-plane.js';
import type { Database } from './database.js';
import { InProcessEventNotifier } from './in-process-notifier.js';
import { PgApprovalStore } from './postgres/pg-approval-store.js';
import { PgCheckpointStore } from './postgres/pg-checkpoint-store.js';
import { PgEventLog } from './postgres/pg-event-log.js';
import { PgEventNotifier, type PgNotifierOptions } from './postgres/pg-notifier.js';
import { PgListenConnection } from './postgres/pg-listen.js';
import { PgTurnQueue } from './postgres/pg-turn-queue.js';
import { PgTurnStore } from './postgres/pg-turn-store.js';
import { PublishedEventLog } from './published-event-log.js';
import { SqliteApprovalStore } from './sqlite-approval-store.js';
import { SqliteCheckpointStore } from './sqlite-checkpoint-store.js';
import { SqliteEventLog } from './sqlite-event-log.js';
import { SqliteTurnQueue } from './sqlite-turn-queue.js';
import { SqliteTurnStore } from './sqlite-turn-store.js';
import type { TurnQueue } from './turn-queue.js';
import type { TurnStore } from './turn-store.js';
import type { TurnInputStore } from '../turns/inputs/input-store.js';
import { SqliteTurnInputStore } from './sqlite-turn-input-store.js';
import { PgTurnInputStore } from './postgres/pg-turn-input-store.js';

export interface TurnEngine {
  turnStore: TurnStore;
  turnQueue: TurnQueue;
  checkpoints: TurnCheckpointStore;
  /** Tool approvals of turns (README "Tool approvals"). */
  approvals: ApprovalStore;
  /** Steering messages of turns (src/turns/inputs/). */
  turnInputs: TurnInputStore;
  eventLog: PublishedEventLog<TurnEvent>;
  workflowEvents: PublishedEventLog<WorkflowEvent>;
  /** The background-job event log (stream id = job id). */
  jobEvents: PublishedEventLog<JobEvent>;
  /** A turn's stored trace, synchronously (for the tracing wrapper); Postgres: as known to this instance. */
  traceOfSync(id: string): TurnTrace | null | undefined;
  /** A turn's `started_at`, synchronously (for the metrics observer); Postgres: as known to this instance. */
  startedAtSync(id: string): string | null | undefined;
  /** State of the LISTEN connection (Postgres), undefined on SQLite (nothing to listen to). */
  listen(): 'ok' | 'reconnecting' | undefined;
  /** Open the LISTEN connection (Postgres; call after the migrations). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The turn-side ports on `stores`' engine (`url`: DATABASE_URL, for the LISTEN connection).
 * `onError(err, what)` hears each failure of the Postgres wake-up machinery (retried on its own),
 * `onRecovered(what)` each success of the same (see {@link PgNotifierOptions}).
 */
export function turnEngine(
  db: Database,
  stores: ControlPlaneStores,
  url: string | undefined,
  onError?: (err: unknown, what: string) => void,
  onRecovered?: (what: string) => void,
): TurnEngine {
  const pg = stores.pg;
  if (!pg || url === undefined) {
    const turnLog = new SqliteEventLog<TurnEvent>(db);
    const turnStore = new SqliteTurnStore(db, turnLog); // a finished record commits with its terminal event
    const workflowLog = new SqliteEventLog<WorkflowEvent>(db);
    const jobLog = new SqliteEventLog<JobEvent>(db);
    return {
      turnStore,
      traceOfSync: (id) => turnStore.getTraceSync(id),
      startedAtSync: (id) => turnStore.startedAtSync(id),
      turnQueue: new SqliteTurnQueue(db),
      checkpoints: new SqliteCheckpointStore(db, turnLog), // committed with the turn's events
      approvals: new SqliteApprovalStore(db),
      turnInputs: new SqliteTurnInputStore(db),
      eventLog: new PublishedEventLog(turnLog, new InProcessEventNotifier<TurnEvent>()),
      workflowEvents: new PublishedEventLog(workflowLog, new InProcessEventNotifier<WorkflowEvent>()),
      jobEvents: new PublishedEventLog(jobLog, new InProcessEventNotifier<JobEvent>()),
      listen: () => undefined,
      start: async () => undefined,
      // Write-behind events and checkpoints are committed before the database closes.
      close: async () => {
        for (const log of [turnLog, workflowLog, jobLog]) log.flush();
      },
    };
  }
  const listen = new PgListenConnection({ url, onError, onRecovered });
  const notifierFor = <E extends { type: string }>(log: PgEventLog<E>) =>
    new PgEventNotifier<E>({ url, send: (sql, params) => pg.query(sql, params), log: log as unknown as PgNotifierOptions['log'], onError, onRecovered, listen });
  // Nothing is stored in a turn's, workflow's or job's log after its terminal event, whoever
  // appends it (a stale instance's late write is refused with StreamClosedError).
  const turnLog = new PgEventLog<TurnEvent>(pg, { terminalTypes: TERMINAL_EVENT_TYPES });
  const workflowLog = new PgEventLog<WorkflowEvent>(pg, { terminalTypes: WORKFLOW_TERMINAL_EVENT_TYPES });
  const turnNotifier = notifierFor(turnLog);
  const workflowNotifier = notifierFor(workflowLog);
  const jobLog = new PgEventLog<JobEvent>(pg, { terminalTypes: JOB_TERMINAL_EVENT_TYPES });
  const jobNotifier = notifierFor(jobLog);
  const turnStore = new PgTurnStore(pg, turnLog); // a finished record commits with its terminal event
  return {
    turnStore,
    traceOfSync: (id) => turnStore.knownTrace(id),
    startedAtSync: (id) => turnStore.knownStartedAt(id),
    turnQueue: new PgTurnQueue(pg),
    checkpoints: new PgCheckpointStore(pg),
    approvals: new PgApprovalStore(pg),
    turnInputs: new PgTurnInputStore(pg),
    eventLog: new PublishedEventLog(turnLog, turnNotifier),
    workflowEvents: new PublishedEventLog(workflowLog, workflowNotifier),
    jobEvents: new PublishedEventLog(jobLog, jobNotifier),
    listen: () => listen.state,
    async start() {
      await Promise.all([turnNotifier.start(), workflowNotifier.start(), jobNotifier.start()]);
    },
    async close() {
      await Promise.all([turnNotifier.close(), workflowNotifier.close(), jobNotifier.close()]);
      await listen.close();
    },
  };
}
