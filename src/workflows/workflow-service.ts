/**
 * The workflow service: creates workflows, runs their tasks as isolated workflow task turns
 * through the turn service, collects results, cancels, and resumes after a restart.
 *
 * Scheduling: a queued task starts when its workflow runs fewer than `concurrency` task turns and
 * its agent fewer than WORKFLOW_MAX_RUNNING_TASKS_PER_AGENT, in workflow creation order then task
 * order. The per-agent count is the store's (`startTask`: count and start in one transaction), so
 * it holds across instances sharing a database; while an agent is at its limit the queue is
 * looked at again every {@link AGENT_LIMIT_POLL_MS} (a task ending elsewhere wakes nobody here). A retryable failure (model/infra error, empty output; not `schema_noncompliance` nor `max_steps`)
 * queues the task again after WORKFLOW_RETRY_BASE_MS × 2^(attempt-1), at most
 * {@link MAX_TASK_ATTEMPTS} attempts in all. A workflow is terminal when every task is: `failed`
 * if any task failed, else `completed` (or `cancelled` by request).
 *
 * Every state change is written to the store first, then appended to the workflow's event stream
 * (stream id = workflow id), so a client that sees an event and then GETs the workflow reads it.
 *
 * Several instances on one database: exactly one instance drives a running workflow — the holder
 * of its lease (TURN_LEASE_MS, renewed every third of it; claimed at create or when taken over).
 * Every renewal also looks for running workflows nobody holds (their instance died or stopped)
 * and takes them up like a restart does. A cancel sent to another instance is stored on the
 * workflow; its driver sees it at its next renewal and cancels. A task turn may run on any
 * instance: its binding is rebuilt from the store where it runs.
 *
 * Fencing (Postgres, src/store/lease-fence.ts `WorkflowFence`): the driver's writes of the
 * workflow's state (a task started, requeued, failed or cancelled, its turn recorded, the
 * workflow finished) carry its lease's claim epoch, so a driver whose database connection hung
 * longer than the lease cannot land them after another instance took the workflow over. A refused
 * write stops the driving here as a lost renewal does; its event is not appended (events follow
 * their state write); when the refused write was the record of a task turn just created, that
 * turn is cancelled (the new driver knows nothing of it and starts another attempt). A task
 * turn's accepted result (`submit_result`, on whichever instance runs the turn) is the task's own
 * write, not the driver's: it is not fenced, but is accepted only from the turn of the task's
 * current attempt (the attempt the turn was started for, and the turn recorded last for it).
 */
import { FailureLog } from '../failure-log.js';
import { uuidv7 } from 'uuidv7';
import type { JsonValue } from '../runtime/json.js';
import type { WorkflowTaskBinding } from '../assembly/context.js';
import type { Config } from '../config.js';
import type { PublishedEventLog } from '../store/published-event-log.js';
import type { TurnService } from '../turns/turn-service-types.js';
import type { WorkflowEvent } from './events.js';
import { validateResult } from './result-validator.js';
import { countTasks, summarize } from './summary.js';
import { awaitTaskTurn, createSubmitGuard, runTaskAttempt, type AttemptOutcome } from './task-attempt.js';
import type { LiveTaskBinding } from '../turns/task-binding.js';
import type { StoredTaskBinding } from '../turns/turn-kinds.js';
import { taskInstructions } from './task-prompt.js';
import type {
  CreateWorkflowInput,
  ListWorkflowsQuery,
  WorkflowPage,
  WorkflowRecord,
  WorkflowService,
  WorkflowTask,
} from './types.js';
import { validateWorkflowInput } from './validate-input.js';
import type { StartTaskOutcome, WorkflowClaim, WorkflowStore } from './workflow-store.js';
import { isWorkflowLeaseLost, type WorkflowFence } from '../store/lease-fence.js';
import { Waiters } from '../turns/waiters.js';

/** Attempts per task, the first included. */
export const MAX_TASK_ATTEMPTS = 3;

/**
 * Ms a task turn's submit_result waits for its driver to record the turn (written just after the
 * turn is created) before refusing it as not the turn of the task's current attempt.
 */
export const RECORD_WAIT_MS = 2000;

/** Ms between looks at the queue while an agent is at its running-task limit or the store failed. */
export const AGENT_LIMIT_POLL_MS = 500;

export interface WorkflowServiceDeps {
  config: Pick<Config, 'WORKFLOW_MAX_TASKS' | 'WORKFLOW_MAX_RUNNING_TASKS_PER_AGENT' | 'WORKFLOW_RETRY_BASE_MS' | 'TURN_LEASE_MS'>;
  /** This instance in workflow leases (default: a new UUIDv7). */
  instanceId?: string;
  store: WorkflowStore;
  events: PublishedEventLog<WorkflowEvent>;
  turns: TurnService;
  log?: { warn: (o: object, m?: string) => void; error: (o: object, m?: string) => void; info?: (o: object, m?: string) => void };
}

interface LiveTask {
  turnId?: string;
  done: Promise<void>;
}

/** In-memory state of a running workflow. */
interface LiveWorkflow {
  id: string;
  agentId: string;
  title: string;
  total: number;
  concurrency: number;
  brain: boolean;
  model: string | null;
  /** Queued task indices, in order. */
  queue: number[];
  /** Earliest start time (ms epoch) of queued tasks waiting out a retry backoff. */
  notBefore: Map<number, number>;
  running: Map<number, LiveTask>;
  cancelling: boolean;
  finished: boolean;
  /** Another instance took the lease over: this one stops driving it. */
  lost: boolean;
  /** The lease this instance drives it with (Postgres: its writes are fenced with it); absent on SQLite. */
  fence?: WorkflowFence;
}

export class DefaultWorkflowService implements WorkflowService {
  readonly events: PublishedEventLog<WorkflowEvent>;
  private readonly live = new Map<string, LiveWorkflow>();
  /**
   * Task attempts of each agent this instance runs, from the start of the attempt until its
   * bookkeeping ended — longer than the store's `running` status, which ends when a result is
   * accepted while the task's turn still finishes. A task starts only below the limit here too,
   * so on one instance no more than the limit of task turns ever run at once.
   */
  private readonly agentRunning = new Map<string, number>();
  private readonly waiters = new Waiters();
  /** Task turns whose final-answer guard saw the model answer in prose (by turn id). */
  private readonly sawText = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private beating = false;
  private stopping = false;
  readonly instanceId: string;
  /** A pump pass is running / another was asked for meanwhile. */
  private pumping = false;
  private pumpAgain = false;

  /** Failed lease renewals (an outage): logged once, then summarized (src/failure-log.ts). */
  private readonly beatFailures: FailureLog;

  constructor(private readonly deps: WorkflowServiceDeps) {
    this.beatFailures = new FailureLog(deps.log, 'renewing workflow leases', { level: 'warn' });
    this.events = deps.events;
    this.instanceId = deps.instanceId ?? uuidv7();
  }

  private leaseUntil(now = Date.now()): number {
    return now + this.deps.config.TURN_LEASE_MS;
  }

  async create(input: CreateWorkflowInput): Promise<WorkflowRecord> {
    const valid = validateWorkflowInput(input, this.deps.config.WORKFLOW_MAX_TASKS);
    const record: WorkflowRecord = {
      id: uuidv7(),
      agent_id: valid.agent_id,
      title: valid.title,
      status: 'running',
      tasks: valid.tasks.map((t, index) => ({ index, ...t, status: 'queued', attempts: 0, turn_ids: [] })),
      concurrency: valid.concurrency,
      brain: valid.brain,
      model: valid.model,
      created_at: new Date().toISOString(),
      completed_at: null,
      summary: null,
    };
    const claim = await this.deps.store.insert(record, { owner: this.instanceId, until: this.leaseUntil() });
    await this.emit(record.id, {
      type: 'workflow.started',
      workflow_id: record.id,
      agent_id: record.agent_id,
      title: record.title,
      concurrency: record.concurrency,
      tasks: record.tasks.map((t) => ({ index: t.index, label: t.label })),
    });
    this.track(record, claim);
    this.pump();
    return (await this.deps.store.get(record.id))!;
  }

  get(id: string): Promise<WorkflowRecord | undefined> {
    return this.deps.store.get(id);
  }

  list(query: ListWorkflowsQuery = {}): Promise<WorkflowPage> {
    return this.deps.store.list(query);
  }

  /**
   * Cancel a running workflow: here when this instance drives it (or nobody does: then it takes
   * it up first); else the request is stored for its driver, and this waits (≤ 10 s plus a lease)
   * for the workflow to end.
   */
  async cancel(id: string): Promise<WorkflowRecord | undefined> {
    const record = await this.deps.store.get(id);
    if (!record) return undefined;
    if (record.status !== 'running') return record;
    // Refused (`lease_lost`: another instance drives it now): ask that one, as below.
    const unlessLost = async <T>(p: Promise<T>): Promise<T | undefined> =>
      p.catch((err: unknown) => {
        if (!isWorkflowLeaseLost(err)) throw err;
        return undefined;
      });
    const live = this.live.get(id);
    if (live) {
      const done = await unlessLost(this.cancelLive(live));
      if (done || !live.lost) return done;
    }
    await this.deps.store.requestCancel(id, new Date().toISOString());
    const deadline = Date.now() + 10_000 + this.deps.config.TURN_LEASE_MS;
    while (Date.now() < deadline) {
      const adopted = this.live.get(id) ?? (await unlessLost(this.adopt(id)));
      if (adopted) {
        const done = await unlessLost(this.cancelLive(adopted));
        if (done || !adopted.lost) return done;
      }
      const now = await this.deps.store.get(id);
      if (!now || now.status !== 'running') return now;
      await new Promise((r) => setTimeout(r, 200));
    }
    return this.deps.store.get(id);
  }

  /** Cancel workflow `wf` driven here: queued tasks cancelled, running task turns cancelled, then finished. */
  private async cancelLive(wf: LiveWorkflow): Promise<WorkflowRecord | undefined> {
    const id = wf.id;
    if (wf.cancelling) {
      await this.waitForTerminal(id);
      return this.deps.store.get(id);
    }
    wf.cancelling = true;
    for (const index of wf.queue) {
      await this.fenced(wf, (fence) => this.deps.store.updateTask(id, index, { status: 'cancelled' }, fence));
      await this.emit(id, { type: 'task.cancelled', task_index: index });
    }
    wf.queue = [];
    wf.notBefore.clear();
    const running = [...wf.running.values()];
    await Promise.all(running.map((t) => (t.turnId ? this.deps.turns.cancel(t.turnId) : undefined)));
    await Promise.race([Promise.all(running.map((t) => t.done)), new Promise((r) => setTimeout(r, 10_000).unref())]);
    await this.finish(wf);
    return this.deps.store.get(id);
  }

  async waitForTerminal(id: string, signal?: AbortSignal): Promise<WorkflowRecord> {
    for (;;) {
      const rec = await this.deps.store.get(id);
      if (!rec) throw new Error(`workflow ${id} not found`);
      if (rec.status !== 'running') return rec;
      signal?.throwIfAborted();
      await this.waiters.wait(id, signal);
    }
  }

  /**
   * Rebuild the live binding of task turn `turnId` from the data stored with it (first run or
   * resume after a restart). Undefined when the task no longer accepts that turn.
   */
  async resolveTaskBinding(turnId: string, stored: StoredTaskBinding): Promise<LiveTaskBinding | undefined> {
    // The task turn may run on an instance that does not drive its workflow: then from the store.
    let wf = this.live.get(stored.workflowId);
    if (!wf) {
      const record = await this.deps.store.get(stored.workflowId);
      if (record?.status === 'running') wf = liveView(record);
    }
    const task = await this.deps.store.getTask(stored.workflowId, stored.taskIndex);
    if (!wf || !task || task.status !== 'running' || task.attempts !== stored.attempt) return undefined;
    const { guard, sawText } = createSubmitGuard();
    return {
      workflowTask: this.binding(wf, task, turnId, stored.attempt),
      finalAnswerGuard: async (info) => {
        const verdict = await guard(info);
        if (sawText()) this.sawText.add(turnId);
        return verdict;
      },
    };
  }

  /**
   * Resume workflows left running by the previous process (call before the turn service starts
   * running turns): a task whose turn had not finished waits for that turn, which resumes from
   * its checkpoint; other running tasks are queued again while attempts remain, else they fail
   * with `interrupted`.
   */
  async start(): Promise<void> {
    this.stopping = false;
    await this.deps.store.recoverOrphans();
    await this.adoptUnowned();
    this.pump();
    const every = Math.max(100, Math.floor(this.deps.config.TURN_LEASE_MS / 3));
    this.heartbeat = setInterval(() => void this.beat(), every);
    this.heartbeat.unref();
  }

  /** Take up every running workflow nobody drives. */
  private async adoptUnowned(): Promise<void> {
    for (const id of await this.deps.store.unownedWorkflows(Date.now())) {
      if (this.stopping) return;
      if (this.live.has(id)) continue;
      // Claimed by another instance meanwhile (a write refused): it drives it. Other errors end the pass (the heartbeat logs them).
      await this.adopt(id).catch((err: unknown) => {
        if (!isWorkflowLeaseLost(err)) throw err;
      });
    }
  }

  /** The fence of this instance's claim `claim` on workflow `id` (undefined on SQLite: no epoch). */
  private fenceOf(id: string, claim: WorkflowClaim | undefined): WorkflowFence | undefined {
    return claim?.epoch === undefined ? undefined : { workflowId: id, owner: this.instanceId, epoch: claim.epoch, lost: false };
  }

  /**
   * A driver write of `wf`, made with its fence: when the store refuses it (`lease_lost`: another
   * instance drives the workflow now) this instance stops driving it, then the refusal is rethrown.
   */
  private async fenced<T>(wf: LiveWorkflow, write: (fence: WorkflowFence | undefined) => Promise<T>): Promise<T> {
    try {
      return await write(wf.fence);
    } catch (err) {
      if (isWorkflowLeaseLost(err)) this.lose(wf);
      throw err;
    }
  }

  /** Stop driving `wf` here: another instance took it over (a renewal found the lease gone, or a write was refused). */
  private lose(wf: LiveWorkflow): void {
    if (wf.lost) return;
    wf.lost = true;
    if (this.live.get(wf.id) === wf) this.live.delete(wf.id);
    this.deps.log?.warn({ workflow_id: wf.id }, 'another instance took this workflow over; no longer driving it here');
  }

  /** Log `err` at error, unless it is a refused write of a workflow taken over ({@link lose} said so). */
  private logUnlessLost(err: unknown, fields: object, msg: string): void {
    if (!isWorkflowLeaseLost(err)) this.deps.log?.error({ err, ...fields }, msg);
  }

  /** Renew this instance's leases (dropping workflows taken over elsewhere, acting on stored cancels), then adopt unowned ones. */
  private async beat(): Promise<void> {
    if (this.beating || this.stopping) return;
    this.beating = true;
    try {
      const held = new Map((await this.deps.store.renewWorkflows(this.instanceId, [...this.live.keys()], this.leaseUntil())).map((h) => [h.id, h]));
      for (const wf of [...this.live.values()]) {
        const h = held.get(wf.id);
        if (!h) {
          if (wf.finished || wf.cancelling) continue; // finishing here
          this.lose(wf);
        } else if (h.cancelRequested && !wf.cancelling) {
          void this.cancelLive(wf).catch((err) => this.logUnlessLost(err, { workflow_id: wf.id }, 'cancelling the workflow failed'));
        }
      }
      await this.adoptUnowned();
      this.pump();
      this.beatFailures.succeeded();
    } catch (err) {
      this.beatFailures.failed(err);
    } finally {
      this.beating = false;
    }
  }

  /**
   * Drive running workflow `id` from here if its lease can be taken (nobody holds it): a task whose
   * turn had not finished waits for that turn, which resumes from its checkpoint; other running
   * tasks are queued again while attempts remain, else they fail with `interrupted`. A cancel
   * stored meanwhile is carried out. Undefined when another instance holds it.
   */
  private async adopt(id: string): Promise<LiveWorkflow | undefined> {
    const now = Date.now();
    const claim = await this.deps.store.claimWorkflow(id, this.instanceId, now, this.leaseUntil(now));
    if (!claim) return undefined;
    if (this.live.has(id)) return this.live.get(id);
    const fence = this.fenceOf(id, claim);
    const record = (await this.deps.store.get(id))!;
    const reattach: WorkflowTask[] = [];
    for (const task of record.tasks.filter((t) => t.status === 'running')) {
      const turnId = task.turn_ids.at(-1);
      const turn = turnId ? await this.deps.turns.get(turnId) : undefined;
      if (turn && (turn.status === 'queued' || turn.status === 'running' || turn.status === 'waiting')) {
        reattach.push(task);
        continue;
      }
      const retry = task.attempts < MAX_TASK_ATTEMPTS;
      const error = { code: 'interrupted', message: 'the service stopped while this task was running' };
      try {
        await this.deps.store.updateTask(id, task.index, { status: retry ? 'queued' : 'failed', error }, fence);
      } catch (err) {
        if (isWorkflowLeaseLost(err)) return undefined; // another instance claimed it meanwhile: it drives it
        throw err;
      }
      await this.emit(id, { type: 'task.failed', task_index: task.index, turn_id: task.turn_ids.at(-1) ?? null, attempt: task.attempts, error, will_retry: retry });
    }
    const wf = this.track((await this.deps.store.get(id))!, claim);
    for (const task of reattach) this.reattachTask(wf, task);
    if (await this.deps.store.cancelRequested(id)) void this.cancelLive(wf).catch((err) => this.logUnlessLost(err, { workflow_id: id }, 'cancelling the workflow failed'));
    else if (wf.queue.length === 0 && wf.running.size === 0) await this.finish(wf);
    return wf;
  }

  /**
   * Stop starting tasks and give up this instance's leases (another instance, or this one after a
   * restart, takes the workflows up); running task turns are stopped by the turn service's own stop.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    for (const id of this.live.keys()) await this.deps.store.releaseWorkflow(id, this.instanceId).catch(() => undefined);
  }

  /** Task attempts of `agentId` running on this instance now (see `agentRunning`). */
  runningTasks(agentId: string): number {
    return this.agentRunning.get(agentId) ?? 0;
  }

  private track(record: WorkflowRecord, claim: WorkflowClaim | undefined): LiveWorkflow {
    const fence = this.fenceOf(record.id, claim);
    const wf: LiveWorkflow = {
      id: record.id,
      agentId: record.agent_id,
      title: record.title,
      total: record.tasks.length,
      concurrency: record.concurrency,
      brain: record.brain,
      model: record.model,
      queue: record.tasks.filter((t) => t.status === 'queued').map((t) => t.index),
      notBefore: new Map(),
      running: new Map(),
      cancelling: false,
      finished: false,
      lost: false,
      ...(fence ? { fence } : {}),
    };
    this.live.set(record.id, wf);
    return wf;
  }

  /** Start every task that may start now (passes never overlap: a call during one runs another after it). */
  private pump(): void {
    if (this.stopping) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    void this.pumpOnce()
      .catch((err) => {
        // A workflow taken over (its start refused) is no longer in `live`: the others go on at once.
        if (isWorkflowLeaseLost(err)) return this.wakeAt(Date.now());
        this.deps.log?.error({ err }, 'workflow scheduling failed; trying again shortly');
        this.wakeAt(Date.now() + AGENT_LIMIT_POLL_MS);
      })
      .finally(() => {
        this.pumping = false;
        if (this.pumpAgain) {
          this.pumpAgain = false;
          this.pump();
        }
      });
  }

  /** One pass over the live workflows; arms a timer for the next backoff to expire or limit poll. */
  private async pumpOnce(): Promise<void> {
    const limit = this.deps.config.WORKFLOW_MAX_RUNNING_TASKS_PER_AGENT;
    const now = Date.now();
    let wakeAt = Infinity;
    const atLimit = new Set<string>();
    for (const wf of [...this.live.values()]) {
      for (let i = 0; i < wf.queue.length; ) {
        if (this.stopping || wf.cancelling || wf.finished) break;
        if (wf.running.size >= wf.concurrency || atLimit.has(wf.agentId)) break;
        const index = wf.queue[i];
        const notBefore = wf.notBefore.get(index) ?? 0;
        if (notBefore > now) {
          wakeAt = Math.min(wakeAt, notBefore);
          i++;
          continue;
        }
        if ((await this.tryStart(wf, index, limit)) === 'agent_limit') {
          atLimit.add(wf.agentId);
          wakeAt = Math.min(wakeAt, now + AGENT_LIMIT_POLL_MS);
        }
      }
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (wakeAt !== Infinity) this.wakeAt(wakeAt);
  }

  private wakeAt(at: number): void {
    if (this.stopping) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, Math.max(0, at - Date.now()));
    this.timer.unref();
  }

  /**
   * Follow the turn of a task that was running when the previous process stopped: the task stays
   * `running` in the store and its turn resumes from its checkpoint.
   */
  private reattachTask(wf: LiveWorkflow, task: WorkflowTask): void {
    const turnId = task.turn_ids.at(-1)!;
    let release!: () => void;
    const entry: LiveTask = { turnId, done: new Promise<void>((r) => (release = r)) };
    wf.running.set(task.index, entry);
    this.agentRunning.set(wf.agentId, this.runningTasks(wf.agentId) + 1);
    void this.resumeTask(wf, task, turnId)
      .catch((err) => this.logUnlessLost(err, { workflow_id: wf.id, task_index: task.index }, 'workflow task run failed'))
      .finally(() => this.afterTask(wf, task.index))
      .catch((err) => this.logUnlessLost(err, { workflow_id: wf.id }, 'workflow bookkeeping failed'))
      .finally(release);
  }

  /** Bookkeeping after a task's attempt ended: free its slot, finish the workflow when idle, pump. */
  private async afterTask(wf: LiveWorkflow, index: number): Promise<void> {
    wf.running.delete(index);
    this.agentRunning.set(wf.agentId, this.runningTasks(wf.agentId) - 1);
    if (wf.lost) return;
    if (!wf.cancelling && !this.stopping && wf.running.size === 0 && wf.queue.length === 0) await this.finish(wf);
    this.pump();
  }

  /**
   * Claim queued task `index` in the store (its agent's limit counted there) and run its turn. The
   * task counts as running in `wf` from the start, so a concurrent cancel waits for it.
   */
  private async tryStart(wf: LiveWorkflow, index: number, limit: number): Promise<'started' | 'agent_limit' | 'skipped'> {
    if (this.runningTasks(wf.agentId) >= limit) return 'agent_limit'; // a turn still ending holds its slot
    const at = wf.queue.indexOf(index);
    wf.queue.splice(at, 1);
    let release!: () => void;
    const entry: LiveTask = { done: new Promise<void>((r) => (release = r)) };
    wf.running.set(index, entry);
    let outcome: StartTaskOutcome;
    try {
      outcome = await this.fenced(wf, (fence) => this.deps.store.startTask(wf.id, index, limit, fence));
    } catch (err) {
      wf.running.delete(index);
      if (!wf.cancelling) wf.queue.splice(at, 0, index);
      release();
      throw err;
    }
    if (outcome.kind !== 'started' || wf.cancelling || this.stopping) {
      wf.running.delete(index);
      if (outcome.kind === 'agent_limit' && !wf.cancelling) wf.queue.splice(at, 0, index);
      if (outcome.kind === 'started' && wf.cancelling) {
        await this.fenced(wf, (fence) => this.deps.store.updateTask(wf.id, index, { status: 'cancelled' }, fence));
        await this.emit(wf.id, { type: 'task.cancelled', task_index: index });
      }
      release();
      return outcome.kind === 'agent_limit' ? 'agent_limit' : 'skipped';
    }
    wf.notBefore.delete(index);
    this.agentRunning.set(wf.agentId, this.runningTasks(wf.agentId) + 1);
    void this.runTask(wf, outcome.task, entry)
      .catch((err) => this.logUnlessLost(err, { workflow_id: wf.id, task_index: index }, 'workflow task run failed'))
      .finally(() => this.afterTask(wf, index))
      .catch((err) => this.logUnlessLost(err, { workflow_id: wf.id }, 'workflow bookkeeping failed'))
      .finally(release);
    return 'started';
  }

  private attemptChecks(wf: LiveWorkflow, index: number) {
    return {
      turns: this.deps.turns,
      succeeded: async () => (await this.deps.store.getTask(wf.id, index))?.status === 'succeeded',
      cancelling: () => wf.cancelling,
      stopping: () => this.stopping,
      sawText: (turnId: string) => this.sawText.has(turnId),
    };
  }

  /** Wait for the resumed turn of `task` and record how it ended. */
  private async resumeTask(wf: LiveWorkflow, task: WorkflowTask, turnId: string): Promise<void> {
    const outcome = await awaitTaskTurn(this.attemptChecks(wf, task.index), turnId);
    this.sawText.delete(turnId);
    await this.settle(wf, task, task.attempts, outcome);
  }

  /** Run one attempt of `task` (already `running` in the store, `attempts` counting this one). */
  private async runTask(wf: LiveWorkflow, task: WorkflowTask, entry: LiveTask): Promise<void> {
    const { store } = this.deps;
    const index = task.index;
    const attempt = task.attempts;
    const outcome = await runTaskAttempt({
      ...this.attemptChecks(wf, index),
      attempt,
      input: {
        input: task.prompt,
        instructions: taskInstructions({ title: wf.title, label: task.label, index, total: wf.total, resultSchema: task.result_schema }),
        agent_id: wf.agentId,
        model: wf.model ?? undefined,
        tools: [],
        brain: wf.brain,
        metadata: { workflow_id: wf.id, task_index: index, attempt },
      },
      workflowId: wf.id,
      taskIndex: index,
      onTurnCreated: async (turnId) => {
        entry.turnId = turnId;
        try {
          await this.fenced(wf, (fence) => store.updateTask(wf.id, index, { turn_ids: [...task.turn_ids, turnId] }, fence));
        } catch (err) {
          // Taken over before the turn was recorded: the new driver knows nothing of this turn
          // (it queues the task again), so nobody would wait for it or end it — cancel it here.
          if (isWorkflowLeaseLost(err)) {
            await this.deps.turns.cancel(turnId).catch((e: unknown) => this.deps.log?.error({ err: e, turn_id: turnId, workflow_id: wf.id }, 'cancelling the turn of a task taken over failed'));
          }
          throw err;
        }
        await this.emit(wf.id, { type: 'task.started', task_index: index, label: task.label, attempt, turn_id: turnId });
      },
    });
    if (entry.turnId) this.sawText.delete(entry.turnId);
    await this.settle(wf, task, attempt, outcome);
  }

  /** Record an attempt's outcome (success was recorded at submit time). */
  private async settle(wf: LiveWorkflow, task: WorkflowTask, attempt: number, outcome: AttemptOutcome): Promise<void> {
    const { store } = this.deps;
    const index = task.index;
    // Shutting down: leave the task `running`; start() on the next run queues it again. Taken
    // over by another instance: that one records how the task ended.
    if (outcome.kind === 'succeeded' || outcome.kind === 'interrupted' || this.stopping || wf.lost) return;
    if (outcome.kind === 'cancelled') {
      await this.fenced(wf, (fence) => store.updateTask(wf.id, index, { status: 'cancelled' }, fence));
      await this.emit(wf.id, { type: 'task.cancelled', task_index: index });
      return;
    }
    const retry = outcome.retryable && attempt < MAX_TASK_ATTEMPTS && !wf.cancelling && !this.stopping;
    await this.fenced(wf, (fence) => store.updateTask(wf.id, index, { status: retry ? 'queued' : 'failed', error: outcome.error }, fence));
    await this.emit(wf.id, { type: 'task.failed', task_index: index, turn_id: outcome.turnId, attempt, error: outcome.error, will_retry: retry });
    if (retry) {
      const at = wf.queue.findIndex((i) => i > index);
      wf.queue.splice(at === -1 ? wf.queue.length : at, 0, index);
      wf.notBefore.set(index, Date.now() + this.deps.config.WORKFLOW_RETRY_BASE_MS * 2 ** (attempt - 1));
    }
  }

  /**
   * The binding a task turn's submit_result uses: re-validate with Ajv, then store and announce.
   * A result is accepted only from the turn of the task's current attempt: while the stored task
   * is still `running` at `attempt` (the attempt the turn was started for) with this turn as its
   * last recorded one, and no cancel of the workflow is under way — here (`cancelling`) or stored
   * by another instance (`WorkflowStore.cancelRequested`: the driver would act on it at its next
   * lease renewal; a submit that sees it starts the cancel at once, as that renewal would). A turn
   * left over from an earlier attempt (its driver lost the workflow before recording it, and the
   * new driver started another attempt) gets an error instead. The checks here say why; the write
   * itself is conditioned on the same facts in one statement (`WorkflowStore.acceptResult`), so a
   * task moved on, or a cancel stored, between them is not marked succeeded.
   */
  private binding(wf: LiveWorkflow, task: WorkflowTask, turnId: string, attempt: number): WorkflowTaskBinding {
    return {
      workflowId: wf.id,
      taskIndex: task.index,
      resultSchema: task.result_schema,
      submit: async (value) => {
        const { store } = this.deps;
        let current = await store.getTask(wf.id, task.index);
        // The driver records a task turn just after creating it, so the turn may submit first:
        // while the task is running this attempt without this turn recorded, wait for the record.
        const until = Date.now() + RECORD_WAIT_MS;
        while (current?.status === 'running' && current.attempts === attempt && current.turn_ids.at(-1) !== turnId && Date.now() < until) {
          await new Promise((r) => setTimeout(r, 50));
          current = await store.getTask(wf.id, task.index);
        }
        const refused = submitRefusal(current, attempt, turnId, await this.cancelUnderWay(wf));
        if (refused) return { ok: false, errors: [refused] };
        // Validate against the schema persisted with the task, not the one the turn was built with.
        const errors = validateResult(current!.result_schema, value);
        if (errors.length > 0) return { ok: false, errors };
        if (!(await store.acceptResult(wf.id, task.index, attempt, turnId, value as JsonValue))) {
          // The task (or its workflow) moved on since the checks above: say how it is now.
          const now = await store.getTask(wf.id, task.index);
          return { ok: false, errors: [submitRefusal(now, attempt, turnId, await this.cancelUnderWay(wf)) ?? 'the workflow is no longer running; no result is accepted now'] };
        }
        await this.emit(wf.id, { type: 'task.succeeded', task_index: task.index, turn_id: turnId, result: value });
        return { ok: true };
      },
    };
  }

  /**
   * Whether a cancel of `wf` is under way: started here, or stored by another instance (POST
   * /v1/workflows/{id}/cancel there) and not yet seen by this driver's lease renewal — then it is
   * started now, as that renewal would ({@link beat}), so the task turns are cancelled at once.
   */
  private async cancelUnderWay(wf: LiveWorkflow): Promise<boolean> {
    if (wf.cancelling) return true;
    if (!(await this.deps.store.cancelRequested(wf.id))) return false;
    if (!wf.lost && !wf.finished) void this.cancelLive(wf).catch((err) => this.logUnlessLost(err, { workflow_id: wf.id }, 'cancelling the workflow failed'));
    return true;
  }

  /** Mark the workflow terminal (once) and wake waiters. */
  private async finish(wf: LiveWorkflow): Promise<void> {
    if (wf.finished) return;
    wf.finished = true;
    const record = (await this.deps.store.get(wf.id))!;
    const counts = countTasks(record.tasks);
    const status = wf.cancelling ? 'cancelled' : counts.failed > 0 ? 'failed' : 'completed';
    const summary = summarize(record.tasks, counts);
    const changed = await this.fenced(wf, (fence) => this.deps.store.finish(wf.id, status, summary, fence));
    this.live.delete(wf.id);
    if (changed) await this.emit(wf.id, { type: `workflow.${status}`, counts, summary });
    this.waiters.wake(wf.id);
  }

  private async emit(workflowId: string, event: WorkflowEvent): Promise<void> {
    try {
      await this.deps.events.append(workflowId, event);
    } catch (err) {
      this.deps.log?.error({ err, workflow_id: workflowId }, 'failed to append workflow event');
    }
  }
}

/**
 * Why a result from turn `turnId` of attempt `attempt` is not accepted for task `current` (as
 * stored now; undefined when it no longer exists): the task is at another attempt, this turn is not
 * the one recorded for the attempt, a result was accepted already, the task is not running (or its
 * workflow is being cancelled, `cancelling`). Undefined when it may be accepted. The text is the
 * error submit_result answers the model with.
 */
function submitRefusal(current: WorkflowTask | undefined, attempt: number, turnId: string, cancelling: boolean): string | undefined {
  if (!current) return 'this task no longer exists';
  if (current.attempts !== attempt) {
    return `this turn ran attempt ${attempt} of the task, which is over (the task is at attempt ${current.attempts}); no result is accepted from it: end your turn`;
  }
  if (current.turn_ids.at(-1) !== turnId) return `this turn is not the one recorded for attempt ${attempt} of the task; no result is accepted from it: end your turn`;
  if (current.status === 'succeeded') return 'a result was already accepted for this task';
  if (current.status !== 'running' || cancelling) return `the task is ${cancelling ? 'being cancelled' : current.status}; no result is accepted now`;
  return undefined;
}

/** A read-only view of a running workflow that another instance drives (for a task turn's binding here). */
function liveView(record: WorkflowRecord): LiveWorkflow {
  return {
    id: record.id,
    agentId: record.agent_id,
    title: record.title,
    total: record.tasks.length,
    concurrency: record.concurrency,
    brain: record.brain,
    model: record.model,
    queue: [],
    notBefore: new Map(),
    running: new Map(),
    cancelling: false,
    finished: false,
    lost: true,
  };
}
