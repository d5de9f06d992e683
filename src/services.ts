/**
 * Builds every long-lived part of the service from the config: the SQLite database in DATA_DIR,
 * the stores, the event log, the model client, the turn service, the {@link ServiceRegistry}
 * handed to each turn's tool families, and background services (start/stop hooks).
 *
 * To add a control-plane service: construct it below on its store from `stores` (the engine
 * DATABASE_URL picks, src/store/control-plane.ts), put it in `registry` if families need it, and push it onto `background` if it runs on its own (the
 * scheduler). One line each; nothing else changes.
 */
import { SchemaTooNewError } from './store/postgres/migrate.js';
import { DatabaseUnavailableError } from './store/postgres/unavailable.js';
import { DatabaseStartError, databaseStartProblem } from './store/database-start.js';
import { FailureLog } from './failure-log.js';
import path from 'node:path';
import type { ServiceRegistry } from './assembly/services.js';
import { configSecrets, type Config } from './config.js';
import type { Logger } from './log.js';
import type { ModelPort } from './model/port.js';
import { withCleanErrors, type SecretSource } from './model/clean-errors.js';
import { modelClientsFromConfig, type ModelClients } from './model/model-clients.js';
import type { TurnEvent } from './runtime/events.js';
import { createStreamTokens, type StreamTokens } from './http/stream-token.js';
import { controlPlaneStores, type ControlPlaneStores } from './store/control-plane.js';
import { turnEngine, type TurnEngine } from './store/turn-engine.js';
import { DataDirInUseError, keepOwnership, openDatabase, ownershipCheck, type Database } from './store/database.js';
import { settingForDisplay } from './unsafe-chars.js';
import { startWalCheckpointer } from './store/wal-checkpointer.js';
import { PublishedEventLog } from './store/published-event-log.js';
import { PgHomeLocks } from './store/postgres/pg-home-lock.js';
import type { TurnCheckpointStore } from './store/checkpoint-store.js';
import type { TurnQueue } from './store/turn-queue.js';
import type { TurnStore } from './store/turn-store.js';
import { DefaultTurnService, type RunTurnFn, type TurnServiceDeps } from './turns/turn-service.js';
import { PgFollowUpLock } from './store/postgres/pg-follow-up-lock.js';
import { assembleTools } from './assembly/assemble.js';
import { ApprovalService } from './turns/approvals/approval-service.js';
import { ApprovalSweeper } from './turns/approvals/sweeper.js';
import { toolOfTurn } from './turns/approvals/turn-tools.js';
import { TurnInputs } from './turns/inputs/turn-inputs.js';
import { systemClock } from './schedules/clock.js';
import { Scheduler, schedulerService } from './schedules/scheduler.js';
import { createScheduleService } from './schedules/service.js';
import { runTurn as loopRunTurn } from './runtime/loop.js';
import { SkillRegistry } from './skills/skill-registry.js';
import { PgSkillCatalog } from './store/postgres/pg-skill-catalog.js';
import { SkillSecrets } from './skills/secrets.js';
import { checkSkillPaths } from './skills/startup-paths.js';
import { FileAttachmentStore } from './attachments/attachment-store.js';
import { PgAttachmentStore } from './store/postgres/pg-attachment-store.js';
import type { WorkflowEvent } from './workflows/events.js';
import { DefaultWorkflowService } from './workflows/workflow-service.js';
import type { JobEvent } from './jobs/events.js';
import { JobService } from './jobs/job-service.js';
import { steerWith } from './jobs/steering.js';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { observeEventLog } from './telemetry/event-log-hooks.js';
import { ServiceMetrics, type TurnCounts } from './telemetry/metrics.js';
import { instrumentModel } from './telemetry/model-telemetry.js';
import { startTracing, type Tracing } from './telemetry/tracing.js';
import { createModelProbe, type ModelProbe } from './telemetry/model-probe.js';
import { traceRunTurn } from './telemetry/turn-spans.js';
import { turnMetricsObserver } from './telemetry/turn-metrics.js';
import { systemResolver } from './tools/web/target-guard.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import type { WebhookStore } from './webhooks/store.js';
import { turnWebhookObserver } from './webhooks/turn-webhooks.js';
import { workflowWebhookObserver } from './webhooks/workflow-webhooks.js';
import { jobWebhookObserver } from './webhooks/job-webhooks.js';
import { jobView } from '../routes/jobs.js';

/** The OpenAI SDK's default base URL (used when OPENAI_BASE_URL is unset). */
const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** Something that runs beside the HTTP server (e.g. the scheduler). */
export interface BackgroundService {
  name: string;
  start(): void | Promise<void>;
  stop(): void | Promise<void>;
}

export interface Services {
  config: Config;
  log: Logger;
  db: Database;
  /**
   * Settles (never rejects) when this service lost DATA_DIR: its `service.lock` was removed or
   * replaced while it ran and another process locked the new one (another service started on the
   * folder: DataDirInUseError), or what is at its path now cannot be locked (DatabaseFileError).
   * From then on every write to `db` is refused (DataDirLostError), found before it commits. The
   * process should stop (src/main.ts does): two services would run the same turns.
   */
  ownershipLost: Promise<Error>;
  /** Schedules, workflows and brain pages (SQLite on `db`, or Postgres with DATABASE_URL). */
  stores: ControlPlaneStores;
  /** The turn-side ports on the same engine (and the LISTEN state on Postgres). */
  engine: TurnEngine;
  /** The turn event log (stream id = turn id): stored in SQLite, then notified in-process. */
  eventLog: PublishedEventLog<TurnEvent>;
  /** The workflow event log (stream id = workflow id). */
  workflowEvents: PublishedEventLog<WorkflowEvent>;
  /** The background-job event log (stream id = job id). */
  jobEvents: PublishedEventLog<JobEvent>;
  turnStore: TurnStore;
  turnQueue: TurnQueue;
  checkpoints: TurnCheckpointStore;
  turns: DefaultTurnService;
  /** Decisions on tool approvals (POST /v1/turns/{id}/approvals; README "Tool approvals"). */
  approvals: ApprovalService;
  /** Steering messages into unfinished turns (POST /v1/turns/{id}/messages; usable by any service). */
  inputs: TurnInputs;
  /** Given to every turn's families as `ctx.services`. */
  registry: ServiceRegistry;
  /** Undefined when no model endpoint is configured (POST /v1/turns → 503 model_not_configured). */
  modelClient: ModelPort | undefined;
  /** Issues/verifies EventSource stream tokens (links.events); undefined when AUTH_TOKENS is empty. */
  streamTokens: StreamTokens | undefined;
  background: BackgroundService[];
  /** Reachability of the configured model endpoint (GET /readyz); undefined for an injected client. */
  modelProbe: ModelProbe | undefined;
  /** Prometheus metrics (GET /metrics). */
  metrics: ServiceMetrics;
  /** OpenTelemetry tracing; undefined when off (src/telemetry/tracing.ts). */
  tracing: Tracing | undefined;
  /** Webhook deliveries: the store (GET /v1/turns/{id}/webhooks) and the sender loop. */
  webhooks: { store: WebhookStore; dispatcher: WebhookDispatcher };
  /**
   * Mark leases of a dead process lost, start background services, then start running turns.
   * @throws ConfigError when SKILLS_DIR or SKILL_SECRETS cannot be used (checked first: before Postgres is migrated and any turn is recovered).
   */
  start(): Promise<void>;
  /** Stop background services (reverse order), detach running turns (they resume), close the database. */
  stop(): Promise<void>;
}

export interface ServicesOverrides {
  /** Use this model client instead of one built from OPENAI_* (tests, the demo); it serves MODEL_API. */
  modelClient?: ModelPort;
  /** Clients per wire protocol for requests naming `model_api` (default: built from OPENAI_*; with `modelClient` set: only that one, for MODEL_API). */
  modelClients?: ModelClients;
  /** Use this instead of the runtime's runTurn (tests of the service alone). */
  runTurn?: RunTurnFn;
  /** Use this instead of the per-request assembler (benches: one no-op tool as the whole tool set). */
  assembleTools?: TurnServiceDeps['assembleTools'];
  /** Export spans here (synchronously) instead of the configured exporter; turns tracing on. */
  spanExporter?: SpanExporter;
  /**
   * Ms between looks at DATA_DIR/service.lock while nothing is written (default 2000; writes look
   * before they commit anyway: src/store/database.ts keepOwnership). Tests set it long so that only
   * the writes' looks can find the folder taken over.
   */
  ownershipCheckMs?: number;
}

/**
 * The log line of a service that lost its DATA_DIR ({@link Services.ownershipLost}): another
 * process holds the lock file now (`DataDirInUseError`), or what is at its path cannot be locked
 * (`DatabaseFileError`, whose message says what it is and what to do). DATA_DIR is shown as start
 * refusals show it ({@link settingForDisplay}).
 */
export function ownershipLostLine(dataDir: string, err: Error): string {
  const shown = settingForDisplay(dataDir); // a line break or bidi control in it cannot act on the log's reader
  if (err instanceof DataDirInUseError) {
    return `DATA_DIR ${shown} was taken over: its service.lock was removed or replaced while this service ran and another process holds it now; this service stops`;
  }
  return `DATA_DIR ${shown} can no longer be held: its service.lock was removed or replaced while this service ran and cannot be locked again (${err.message}); this service stops`;
}

/**
 * The model client from config: configured when OPENAI_API_KEY or OPENAI_BASE_URL is set
 * (local endpoints such as vLLM or Ollama need only the base URL).
 */
export function modelClientFromConfig(config: Config): ModelPort | undefined {
  return modelClientsFromConfig(config)?.[config.MODEL_API];
}

export function createServices(config: Config, log: Logger, overrides: ServicesOverrides = {}): Services {
  const db = openDatabase(config.DATA_DIR);
  // Checkpoints of the WAL on a worker thread (never on the event loop); failures logged once per streak.
  const walFailures = new FailureLog(log, 'SQLite WAL checkpoint', { level: 'warn' });
  const walCheckpointer = startWalCheckpointer(db, undefined, { onError: (err) => walFailures.failed(err), onCheckpoint: () => walFailures.succeeded() });
  // DATA_DIR/service.lock is looked up before every write and every 2 s: removed or replaced, it is
  // locked again; taken by another process meanwhile (or replaced by something that cannot be
  // locked), writes are refused and this service must stop (ownershipLost).
  let lose: (err: Error) => void = () => {};
  const ownershipLost = new Promise<Error>((resolve) => (lose = resolve));
  const stopOwnershipWatch = keepOwnership(
    db,
    {
      onRetaken: (file) => log.warn({ file }, `${file} was removed or replaced while this service runs; it is locked again (a service started on DATA_DIR meanwhile would have been let in: never remove it while a service runs)`),
      onLost: (err) => {
        log.error({ err: err.message }, ownershipLostLine(config.DATA_DIR, err));
        lose(err);
      },
    },
    overrides.ownershipCheckMs,
  );
  const stores = controlPlaneStores(config, db, (err) => log.warn({ err }, 'an idle Postgres connection failed; the pool reconnects on next use'));
  // Failures of the Postgres wake-ups (LISTEN connection, NOTIFY, catch-up reads) are retried on
  // their own: each kind is logged once when it starts failing, then summarized, then `recovered`.
  const pgFailures = new Map<string, FailureLog>();
  const pgFailure = (what: string) => {
    let f = pgFailures.get(what);
    if (!f) pgFailures.set(what, (f = new FailureLog(log, `Postgres ${what}`, { level: 'warn' })));
    return f;
  };
  const engine = turnEngine(db, stores, config.DATABASE_URL, (err, what) => pgFailure(what).failed(err), (what) => pgFailures.get(what)?.succeeded());
  const { turnStore, turnQueue, checkpoints } = engine;
  const scheduleStore = stores.schedules;
  // SKILL_SECRETS as every reader sees it: a refused edit keeps the previous values (src/skills/secrets.ts).
  const skillSecrets = new SkillSecrets(config.SKILL_SECRETS, log);
  const registry: ServiceRegistry = { skillSecrets };
  const background: BackgroundService[] = [];
  let turnCounts: () => Promise<TurnCounts> = async () => ({ queued: 0, running: 0 });
  const metrics = new ServiceMetrics(() => turnCounts(), { model: config.MODEL });
  const tracing = startTracing(config, { exporter: overrides.spanExporter, log, metrics });
  const webhookStore = stores.webhooks;
  const dispatcher = new WebhookDispatcher({
    store: webhookStore,
    secret: config.WEBHOOK_SECRET,
    previousSecret: config.WEBHOOK_SECRET_PREVIOUS,
    allowHosts: config.WEBHOOK_ALLOW_HOSTS,
    resolver: systemResolver,
    retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    metrics,
    log,
  });
  const onObserverError = (err: unknown, logged: { streamId: string; event: { type: string } }) =>
    log.error({ err, stream_id: logged.streamId, type: logged.event.type }, 'event observer failed');
  let jobs: JobService | undefined;
  // Typed event logs per stream kind (one table): stored, then notified (in-process, or LISTEN/NOTIFY on Postgres).
  const eventLog = observeEventLog(engine.eventLog, {
    metrics,
    observers: [
      (logged) => jobs?.observeTurnEvent(logged),
      turnMetricsObserver(metrics, (id) => engine.startedAtSync(id)),
      turnWebhookObserver({ getTurn: (id) => turnStore.get(id), webhookOf: async (id) => (await turnStore.getRequest(id))?.webhook, serverUrl: config.WEBHOOK_URL, enqueue: (d) => dispatcher.enqueue(d) }),
    ],
    onObserverError,
  });
  const workflowEvents = observeEventLog(engine.workflowEvents, {
    metrics,
    observers: [
      workflowWebhookObserver({ getWorkflow: async (id) => registry.workflows?.get(id), webhookOf: (id) => webhookStore.subscription('workflow', id), enqueue: (d) => dispatcher.enqueue(d) }),
    ],
    onObserverError,
  });
  const rawClients: ModelClients | undefined =
    overrides.modelClients ?? (overrides.modelClient ? { [config.MODEL_API]: overrides.modelClient } : modelClientsFromConfig(config));
  // Every model request is measured (and traced when tracing is on), whatever the wire protocol;
  // before that, its errors lose every secret value the service knows and are bounded in size
  // (src/model/clean-errors.ts), so no event, record, webhook, log line or span holds them.
  const secrets: SecretSource = async () => [
    ...configSecrets(config),
    ...[...(await skillSecrets.read().catch(() => new Map<string, string>()))].map(([name, value]) => ({ name, value })),
  ];
  const model = (c: ModelPort) => instrumentModel(withCleanErrors(c, secrets), { metrics, tracing, log });
  const modelClients: ModelClients | undefined =
    rawClients && Object.fromEntries(Object.entries(rawClients).map(([api, c]) => [api, c && model(c)]));
  const modelClient = modelClients?.[config.MODEL_API] ?? (overrides.modelClient && model(overrides.modelClient));
  const inputs = new TurnInputs({ store: engine.turnInputs, turns: turnStore, events: eventLog, notifier: engine.eventLog.notifier, idempotency: stores.idempotency });
  // Several instances on one Postgres: follow-ups of one agent are created one at a time across them.
  const followUpLock = config.DATABASE_URL
    ? new PgFollowUpLock({ url: config.DATABASE_URL, statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS, onError: (err) => log.warn({ err }, 'a follow-up lock connection failed; the pool reconnects on next use') })
    : undefined;
  const turns = new DefaultTurnService({
    config,
    inputs,
    checkOwnership: ownershipCheck(db),
    ...(followUpLock ? { followUpLock } : {}),
    store: turnStore,
    queue: turnQueue,
    checkpoints,
    events: eventLog,
    notifier: engine.eventLog.notifier,
    registry,
    modelClient,
    modelClients,
    runTurn: traceRunTurn(overrides.runTurn ?? (loopRunTurn as RunTurnFn), { tracing, traceOf: (id) => engine.traceOfSync(id) }),
    ...(overrides.assembleTools ? { assembleTools: overrides.assembleTools } : {}),
    approvals: engine.approvals,
    onWaiting: async (id) => {
      await approvals.afterWait(id);
      await jobs?.observeTurnWaiting(id);
    },
    log,
  });
  turnCounts = () => turns.stats();
  const approvals = new ApprovalService({
    store: engine.approvals,
    turns: turnStore,
    queue: turnQueue,
    events: eventLog,
    wake: () => turns.wake(),
    toolOf: (turnId, name) => toolOfTurn({ config, registry, assemble: overrides.assembleTools ?? assembleTools, store: turnStore }, turnId, name),
    log,
  });
  const sweeper = new ApprovalSweeper(approvals, 1000, log);
  background.push({ name: 'approvals', start: () => sweeper.start(), stop: () => sweeper.stop() });

  // --- control-plane services (one line each; add to `registry` / `background`) ---
  registry.schedules = createScheduleService({ store: scheduleStore, clock: systemClock, config, turnStatus: async (id) => (await turnStore.get(id))?.status });
  background.push(schedulerService(new Scheduler({ store: scheduleStore, turns, tickMs: config.SCHEDULER_TICK_MS, logger: log })));
  const workflows = new DefaultWorkflowService({ config, store: stores.workflows, events: workflowEvents, turns, log });
  turns.bindings = (turnId, binding) => workflows.resolveTaskBinding(turnId, binding);
  registry.workflows = workflows;
  background.push({ name: 'workflows', start: () => workflows.start(), stop: () => workflows.stop() });
  jobs = new JobService({
    config,
    store: stores.jobs,
    events: observeEventLog(engine.jobEvents, {
      metrics,
      observers: [
        jobWebhookObserver({ getJob: (id) => stores.jobs.get(id), view: (job) => jobView(job), webhookOf: async (id) => (await turnStore.getRequest(id))?.webhook, serverUrl: config.WEBHOOK_URL, enqueue: (d) => dispatcher.enqueue(d) }),
      ],
      onObserverError,
    }),
    turns,
    turnStore,
    steer: steerWith(inputs),
    pendingApprovals: (turnId) => approvals.pending(turnId, false),
    log,
    idempotency: stores.idempotency,
    skills: { enabledFor: (agentId) => skills.enabledFor(agentId) }, // the registry is made below
  });
  registry.jobs = jobs;
  registry.clarifyPolicy = jobs.clarifyPolicy;
  const jobService = jobs;
  background.push({ name: 'jobs', start: () => jobService.startPasses(), stop: () => jobService.stopPasses() });
  registry.brain = stores.brain;
  background.push({ name: 'webhooks', start: () => dispatcher.start(), stop: () => dispatcher.stop() });
  // With Postgres the installed skills (archives) and enabled lists are shared; DATA_DIR/skills holds this instance's unpacked copies.
  const skills = new SkillRegistry({ db, installDir: path.join(config.DATA_DIR, 'skills'), builtinsDir: config.SKILLS_DIR, catalog: stores.pg && new PgSkillCatalog(stores.pg), log });
  registry.skills = skills;
  // With Postgres the attachments' bytes live in the database, so any instance serves a download.
  registry.attachments = stores.pg ? new PgAttachmentStore(stores.pg) : new FileAttachmentStore(path.join(config.DATA_DIR, 'attachments'));
  // Several instances share agent homes: the home lock holds across them (Postgres advisory lock per agent).
  // On a pool of their own: a command holds its lock's connection while it runs.
  const homeLocks = config.DATABASE_URL
    ? PgHomeLocks.withOwnPool({
        url: config.DATABASE_URL,
        max: config.MAX_CONCURRENT_TURNS,
        statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
        onError: (err) => log.warn({ err }, 'the connection holding an agent-home lock failed; the lock is gone with it'),
      })
    : undefined;
  if (homeLocks) registry.homeLocks = homeLocks;

  let started = false;
  return {
    config,
    log,
    db,
    ownershipLost,
    stores,
    engine,
    eventLog,
    workflowEvents,
    jobEvents: jobs.events,
    turnStore,
    turnQueue,
    checkpoints,
    turns,
    approvals,
    inputs,
    registry,
    modelClient,
    streamTokens:
      config.AUTH_TOKENS.length > 0
        ? createStreamTokens({ secret: config.STREAM_TOKEN_SECRET, ttlSeconds: config.STREAM_TOKEN_TTL_S })
        : undefined,
    background,
    metrics,
    tracing,
    webhooks: { store: webhookStore, dispatcher },
    modelProbe: !overrides.modelClient && !overrides.modelClients && rawClients ? createModelProbe(config.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL, { apiKey: config.OPENAI_API_KEY }) : undefined,
    async start() {
      // Before Postgres is migrated and any turn is recovered. SKILL_SECRETS is read once, by the
      // service's SkillSecrets: the file checked is the one whose values are in use (and kept
      // should a later edit be refused), never a second read of a file edited in between.
      await checkSkillPaths({ skillsDir: config.SKILLS_DIR, secretsFile: config.SKILL_SECRETS, readSecrets: () => skillSecrets.read() });
      let migrated;
      try {
        migrated = await stores.open();
        await engine.start();
      } catch (err) {
        // Unreachable (DatabaseUnavailableError) and too new (SchemaTooNewError) say so themselves;
        // anything else the database refused (no such database, login, SSL) is one clear line.
        if (config.DATABASE_URL === undefined || err instanceof DatabaseUnavailableError || err instanceof SchemaTooNewError) throw err;
        throw new DatabaseStartError(databaseStartProblem(err, config.DATABASE_URL), { cause: err });
      }
      if (migrated?.applied.length) log.info(migrated, 'database schema migrated');
      await skills.load(); // before any turn runs
      const r = await turns.recover();
      if (r.resumable || r.queued) log.warn(r, 'resuming turns left over from the previous run');
      for (const b of background) await b.start();
      turns.startRunning();
      started = true;
    },
    async stop() {
      if (started) for (const b of [...background].reverse()) await b.stop();
      await turns.stop();
      await turns.close();
      await homeLocks?.close();
      await engine.close();
      await stores.close();
      await walCheckpointer?.close();
      stopOwnershipWatch();
      db.close();
      await tracing?.shutdown();
    },
  };
}
