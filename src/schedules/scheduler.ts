/**
 * The scheduler engine: every SCHEDULER_TICK_MS it claims the due slots of active schedules and
 * starts one ordinary turn per claimed run:
 * `TurnService.create(request, {origin: {type: 'schedule', schedule_id}, kind: 'scheduled',
 * idempotencyKey: 'schedule_run:<run id>'})`.
 *
 * Guarantees:
 * - Exactly once across instances: a slot is claimed by a conditional UPDATE in a transaction
 *   (store.claim); only the winner starts the turn.
 * - Crash between claim and start: the run stays `claimed` with its slot and request snapshot;
 *   {@link Scheduler.start} re-starts such runs first. The turn's idempotency key is derived from
 *   the run id, so a run whose turn was created just before the crash is not started twice.
 * - Catch-up after downtime: a missed one-shot fires once; a recurring schedule fires once for all
 *   the slots it missed (the run's `missed_slots` counts the others) and then continues with its
 *   next slot after now — never a burst of runs.
 *
 * The clock is injectable ({@link Clock}); tests call {@link Scheduler.tick} directly.
 */
import { FailureLog } from '../failure-log.js';
import { uuidv7 } from 'uuidv7';
import type { TurnService } from '../turns/turn-service-types.js';
import { systemClock, type Clock } from './clock.js';
import type { ClaimPlan, ScheduleStore, StoredRun, StoredSchedule } from './store.js';
import { countSlotsBetween, isRecurring, nextSlotAfter } from './when.js';

/** Minimal logger (pino-compatible subset). */
export interface SchedulerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface SchedulerDeps {
  store: ScheduleStore;
  turns: Pick<TurnService, 'create'>;
  clock?: Clock;
  /** SCHEDULER_TICK_MS: how often due schedules are looked for. */
  tickMs: number;
  logger?: SchedulerLogger;
  /** Identifies this process in `schedule_runs.claimed_by` (default: a fresh UUIDv7). */
  instanceId?: string;
}

/** What one tick (or recovery) did, for logs and tests. */
export interface TickResult {
  /** Runs whose turn was started (or found already started via idempotency). */
  started: { run_id: string; schedule_id: string; turn_id: string; slot_at: number; missed_slots: number }[];
  /** Runs the turn service refused; they are stored as `failed` with the error. */
  failed: { run_id: string; schedule_id: string; error: { code: string; message: string } }[];
}

const silent: SchedulerLogger = { info() {}, warn() {}, error() {} };

function errorOf(err: unknown): { code: string; message: string } {
  const e = err as { code?: unknown; message?: unknown };
  return {
    code: typeof e?.code === 'string' ? e.code : 'turn_start_failed',
    message: typeof e?.message === 'string' ? e.message : String(err),
  };
}

export class Scheduler {
  private readonly clock: Clock;
  private readonly log: SchedulerLogger;
  readonly instanceId: string;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<TickResult> | undefined;
  /** Set by stop(): a tick in progress claims no further slots. */
  private halted = false;
  /** Failed ticks (an outage): logged once, then summarized (src/failure-log.ts). */
  private readonly tickFailures: FailureLog;

  constructor(private readonly deps: SchedulerDeps) {
    this.clock = deps.clock ?? systemClock;
    this.log = deps.logger ?? silent;
    this.tickFailures = new FailureLog(this.log, 'scheduler tick');
    this.instanceId = deps.instanceId ?? uuidv7();
  }

  /**
   * Recover runs left `claimed` by a crash, fire everything due (catch-up), then tick every
   * `tickMs`. Resolves after the first tick.
   */
  async start(): Promise<TickResult> {
    this.halted = false;
    const recovered = await this.recover();
    const first = await this.tick();
    if (!this.halted) {
      this.timer = setInterval(() => {
        void this.tick().then(
          () => this.tickFailures.succeeded(),
          (err) => this.tickFailures.failed(err),
        );
      }, this.deps.tickMs);
      this.timer.unref();
    }
    return { started: [...recovered.started, ...first.started], failed: [...recovered.failed, ...first.failed] };
  }

  /** Stop ticking and wait for a tick in progress. Claimed runs not yet started stay claimed. */
  async stop(): Promise<void> {
    this.halted = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /**
   * Claim every due slot and start its turn. Ticks never overlap: a call while one runs returns
   * that tick's promise. After {@link stop} a tick claims nothing (until {@link start} again).
   */
  tick(): Promise<TickResult> {
    if (this.running) return this.running;
    this.running = this.runTick().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Re-start runs left `claimed` (crash between claim and turn start). */
  async recover(): Promise<TickResult> {
    const result: TickResult = { started: [], failed: [] };
    for (const run of await this.deps.store.claimedRuns()) {
      if (run.claimed_by !== this.instanceId && !(await this.deps.store.reclaim(run.id, run.claimed_by, this.clock.now(), this.instanceId))) continue;
      this.log.warn({ run_id: run.id, schedule_id: run.schedule_id }, 'restarting a schedule run claimed before a restart');
      await this.startRun(run, result);
    }
    return result;
  }

  private async runTick(): Promise<TickResult> {
    const result: TickResult = { started: [], failed: [] };
    const now = this.clock.now();
    for (const s of await this.deps.store.due(now)) {
      if (this.halted) break;
      const run = await this.deps.store.claim(s, this.plan(s, now), now, this.instanceId);
      if (!run) continue; // another instance (or an edit) got there first
      await this.startRun(run, result);
    }
    return result;
  }

  /** Next state of a due schedule: one-shots complete; cron continues at its next slot after now. */
  private plan(s: StoredSchedule, now: number): ClaimPlan {
    if (!isRecurring(s.when)) return { runId: uuidv7(), nextRunAt: null, status: 'completed', missedSlots: 0 };
    const next = nextSlotAfter(s.when, now);
    return {
      runId: uuidv7(),
      nextRunAt: next,
      status: next === null ? 'completed' : 'active',
      missedSlots: countSlotsBetween(s.when, s.next_run_at!, now),
    };
  }

  private async startRun(run: StoredRun, result: TickResult): Promise<void> {
    const r = run.request;
    try {
      const turn = await this.deps.turns.create(
        {
          input: r.input,
          agent_id: run.agent_id,
          tools: r.tools,
          ...(r.instructions !== null ? { instructions: r.instructions } : {}),
          ...(r.model !== null ? { model: r.model } : {}),
          ...(r.max_steps !== null ? { max_steps: r.max_steps } : {}),
          ...(r.metadata !== null ? { metadata: r.metadata } : {}),
          ...(r.brain ? { brain: true } : {}),
          ...(r.webhook ? { webhook: r.webhook } : {}),
          ...(r.approvals ? { approvals: r.approvals } : {}),
        },
        {
          origin: { type: 'schedule', schedule_id: run.schedule_id },
          kind: 'scheduled',
          idempotencyKey: `schedule_run:${run.id}`,
        },
      );
      await this.deps.store.markStarted(run.id, turn.id, this.clock.now());
      result.started.push({ run_id: run.id, schedule_id: run.schedule_id, turn_id: turn.id, slot_at: run.slot_at, missed_slots: run.missed_slots });
      this.log.info({ run_id: run.id, schedule_id: run.schedule_id, turn_id: turn.id }, 'schedule fired');
    } catch (err) {
      const error = errorOf(err);
      if (error.code === 'shutting_down') {
        // the turn service is stopping: leave the run claimed; the next start-up re-starts it
        this.log.warn({ run_id: run.id, schedule_id: run.schedule_id }, 'schedule run left claimed: the service is shutting down');
        return;
      }
      await this.deps.store.markFailed(run.id, error);
      result.failed.push({ run_id: run.id, schedule_id: run.schedule_id, error });
      this.log.error({ run_id: run.id, schedule_id: run.schedule_id, err }, 'schedule run could not start its turn');
    }
  }
}

/** The scheduler as a background service of src/services.ts (start recovers and catches up). */
export function schedulerService(scheduler: Scheduler): { name: string; start(): Promise<void>; stop(): Promise<void> } {
  return {
    name: 'scheduler',
    async start() {
      await scheduler.start();
    },
    stop: () => scheduler.stop(),
  };
}
