/**
 * The driver of background jobs: everything that moves jobs on its own. A pass (every
 * {@link JOB_POLL_MS}, and at once when a job turn ends or a job changes here) advances running
 * jobs whose turn finished, moves a job whose turn waits for a person's approval to
 * `waiting_on_approval` (releasing its slot, listing the calls) and back to `running` once they are
 * decided, starts queued jobs while the agent has free slots, and delivers pending notices. Each move is a conditional update, so a pass on another instance (or after a crash)
 * can repeat safely: turns are created with an idempotency key per start, notices are stored with
 * the move that caused them and cleared once delivered. State is written first, then the job's
 * event is appended (stream id = job id). Jobs have no lease: every instance's passes may move any
 * job, so a pass that lost the race — or whose statements a hung connection delivers late, after
 * other passes moved the job on — is refused by the same conditions. A move decided from a job
 * turn's outcome is conditioned on the job's status AND its start (`attempts`, raised by every
 * start): a late move cannot apply an old turn's outcome to a job answered and started again. A
 * late `addTurn` names its attempt too; a late start finds the job no longer queued; the event of
 * a refused move is not appended. It also mirrors each job turn's activity into the job's
 * stream ({@link JobDriver.observeTurnEvent}).
 */
import { FailureLog } from '../failure-log.js';
import type { Config } from '../config.js';
import { isDomainError } from '../errors.js';
import type { LoggedEvent } from '../store/event-log.js';
import type { IdempotencyKeys } from '../store/idempotency-keys.js';
import type { PublishedEventLog } from '../store/published-event-log.js';
import type { TurnStore } from '../store/turn-store.js';
import type { TurnService } from '../turns/turn-service-types.js';
import { recordApprovalWait, resumeAfterDecision, type ApprovalWaitDeps } from './approval-wait.js';
import type { JobEvent } from './events.js';
import type { JobPatch, JobStore } from './job-store.js';
import { jobTurnKey, jobTurnOutcome, jobTurnRequest, withQuestionLimit, type JobTurnOutcome } from './job-turn.js';
import { deliverNotice } from './notice-delivery.js';
import { noticeFor } from './notices.js';
import { TurnJobIndex } from './turn-job-index.js';
import type { JobApproval, JobRecord } from './types.js';

export const JOB_POLL_MS = 1000;

/** Turn events after which a pass looks at the job again (approvals asked, decided; the turn resumed). */
const APPROVAL_EVENTS = new Set(['approval.requested', 'approval.resolved', 'turn.resumed']);

/** Refusals of a job turn's creation that pass: the next pass tries again. */
const TRANSIENT_START_ERRORS = new Set(['previous_turn_active', 'shutting_down', 'database_unavailable']);

export interface JobServiceDeps {
  config: Pick<Config, 'BACKGROUND_JOB_MAX_STEPS' | 'BACKGROUND_JOBS_MAX_RUNNING_PER_AGENT' | 'BACKGROUND_JOB_MAX_QUESTIONS'>;
  store: JobStore;
  events: PublishedEventLog<JobEvent>;
  turns: Pick<TurnService, 'create' | 'get' | 'cancel'>;
  turnStore: Pick<TurnStore, 'get' | 'getRequest' | 'continuations' | 'cancelRequestedAt'>;
  /**
   * Store a steering message for a live turn (applied between its rounds); its message id, or
   * undefined when the turn has finished. Absent: messages to running jobs are refused.
   */
  steer?: (turnId: string, text: string) => Promise<{ message_id: string } | undefined>;
  /**
   * The undecided approvals of a turn, in request order (src/turns/approvals/approval-service.ts
   * `pending`). Absent: a job whose turn waits for an approval stays `running`.
   */
  pendingApprovals?: (turnId: string) => Promise<Pick<JobApproval, 'call_id' | 'name' | 'label' | 'expires_at'>[]>;
  log?: { warn: (o: object, m?: string) => void; error: (o: object, m?: string) => void; info?: (o: object, m?: string) => void };
  /** Idempotency keys of messages to jobs (JobService.sendOnce); absent: a key is ignored. */
  idempotency?: IdempotencyKeys;
  /**
   * The agents' enabled skill lists (src/skills/skill-registry.ts), read when a job is created from
   * a turn that sent no `skills` (JobRecord.skills). Absent: such a job's turns get the agent's
   * list as it is when they start.
   */
  skills?: { enabledFor(agentId: string): Promise<string[]> };
}

export class JobDriver {
  private readonly index: TurnJobIndex;
  private timer: NodeJS.Timeout | undefined;
  private passing = false;
  private passAgain = false;
  private running = false;
  /** Jobs whose turn this instance is creating now. */
  private readonly starting = new Set<string>();

  private readonly approvalDeps: ApprovalWaitDeps;

  /** Failed passes (an outage): logged once, then summarized (src/failure-log.ts). */
  private readonly passFailures: FailureLog;

  constructor(private readonly d: JobServiceDeps) {
    this.passFailures = new FailureLog(d.log, 'background job pass');
    this.index = new TurnJobIndex(d.turnStore);
    this.approvalDeps = { store: d.store, turnStore: d.turnStore, pendingApprovals: d.pendingApprovals, emit: (id, e) => this.emit(id, e) };
  }

  /**
   * Event-log observer of every turn event: mirrors a job turn's activity (finished tool calls,
   * answer texts, applied steering messages) into the job stream, wakes the pass at its end.
   */
  observeTurnEvent(logged: LoggedEvent): Promise<void> | undefined {
    const type = logged.event.type;
    const ends = type === 'turn.completed' || type === 'turn.failed' || type === 'turn.cancelled';
    // Synchronous for the events no job looks at (no promise for most of a turn's events).
    if (type !== 'tool.completed' && type !== 'message.completed' && type !== 'input.applied' && !ends && !APPROVAL_EVENTS.has(type)) return undefined;
    // Synchronous, too, for a turn known to be no job's (every round's tool.completed of an
    // ordinary turn after its first): no promise, so the event log's observers stay synchronous.
    if (this.index.knownJobOf(logged.streamId) === null) return undefined;
    return this.observeJobTurnEvent(logged);
  }

  private async observeJobTurnEvent(logged: LoggedEvent): Promise<void> {
    const e = logged.event as { type: string; label?: string | null; is_error?: boolean; text?: string; message_id?: string };
    const ends = e.type === 'turn.completed' || e.type === 'turn.failed' || e.type === 'turn.cancelled';
    const approval = APPROVAL_EVENTS.has(e.type);
    const jobId = await this.index.jobOf(logged.streamId);
    if (!jobId) return;
    if (ends || approval) return this.wake();
    if (e.type === 'input.applied') {
      if (e.message_id) await this.emit(jobId, { type: 'job.message_applied', turn_id: logged.streamId, message_id: e.message_id });
      return;
    }
    if (e.type === 'tool.completed') {
      await this.emit(jobId, { type: 'job.activity', turn_id: logged.streamId, kind: 'tool', label: e.label ?? null, text: null, is_error: e.is_error === true });
    } else if (e.text?.trim()) {
      await this.emit(jobId, { type: 'job.activity', turn_id: logged.streamId, kind: 'message', label: null, text: e.text, is_error: false });
    }
  }

  /** A turn paused (status `waiting`): if it is a job's, the job moves to waiting_on_approval now, not at the next poll. */
  async observeTurnWaiting(turnId: string): Promise<void> {
    if (await this.index.jobOf(turnId)) this.wake();
  }

  /** Start the passes (call before the turn service runs turns, so no job turn end is missed). */
  startPasses(): void {
    this.running = true;
    this.timer = setInterval(() => this.wake(), JOB_POLL_MS);
    this.timer.unref();
    this.wake();
  }

  stopPasses(): void {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
  }

  /** Run a pass now (or right after the current one). */
  wake(): void {
    if (!this.running) return;
    if (this.passing) {
      this.passAgain = true;
      return;
    }
    this.passing = true;
    void this.pass()
      .then(
        () => this.passFailures.succeeded(),
        (err) => this.passFailures.failed(err),
      )
      .finally(() => {
        this.passing = false;
        if (this.passAgain) {
          this.passAgain = false;
          this.wake();
        }
      });
  }

  private async pass(): Promise<void> {
    const { store } = this.d;
    for (const id of await store.idsWithStatus(['running', 'waiting_on_approval'])) await this.guard(id, () => this.advance(id));
    // Oldest first; an agent found at its limit is not asked again in this pass (no write per queued job).
    const full = new Set<string>();
    for (const id of await store.idsWithStatus(['queued'])) {
      if (!this.running) return;
      await this.guard(id, async () => {
        const job = await store.get(id);
        if (!job || job.status !== 'queued' || full.has(job.agent_id)) return;
        const s = await store.start(id, 'queued', this.d.config.BACKGROUND_JOBS_MAX_RUNNING_PER_AGENT);
        if (s.kind === 'started') await this.startTurn(s.job);
        else if (s.kind === 'agent_limit') full.add(job.agent_id);
      });
    }
    for (const id of await store.idsWithNotice()) await this.guard(id, () => this.deliver(id));
  }

  private async guard(id: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.d.log?.error({ err, job_id: id }, 'background job step failed');
    }
  }

  /**
   * A running job: create its current turn if missing, follow it into and out of waiting for
   * approvals, or move it on once that turn finished.
   */
  private async advance(id: string): Promise<void> {
    let job = await this.d.store.get(id);
    if (!job || (job.status !== 'running' && job.status !== 'waiting_on_approval')) return;
    if (job.status === 'running' && job.turn_ids.length < job.attempts) return this.startTurn(job);
    const turnId = job.turn_ids.at(-1)!;
    const turn = await this.d.turns.get(turnId);
    if (turn?.status === 'waiting') {
      if (await recordApprovalWait(this.approvalDeps, job, turnId)) this.wake(); // its slot is free
      return;
    }
    const outcome = turn
      ? withQuestionLimit(job, jobTurnOutcome(turn), this.d.config.BACKGROUND_JOB_MAX_QUESTIONS)
      : { to: 'failed' as const, error: { code: 'turn_missing', summary: `the job's turn ${turnId} is gone`, retryable: false } };
    if (job.status === 'waiting_on_approval' && turn) {
      const resumed = await resumeAfterDecision(this.approvalDeps, job, turnId, outcome);
      if (!resumed) return;
      job = resumed;
    }
    if (outcome) await this.move(job, outcome, turnId);
  }

  /** Answered while waiting: running again when a slot is free, else queued. */
  async resume(id: string): Promise<void> {
    const s = await this.d.store.start(id, 'waiting_on_user', this.d.config.BACKGROUND_JOBS_MAX_RUNNING_PER_AGENT);
    if (s.kind === 'started') await this.startTurn(s.job);
    else if (s.kind === 'agent_limit') await this.d.store.transition(id, 'queued');
  }

  /** Create the turn of the job's current start (idempotent per start) and record it. */
  private async startTurn(job: JobRecord): Promise<void> {
    // One creation per job at a time in this instance (a pass and an answer may both get here);
    // across instances the turn's idempotency key makes a second creation return the same turn.
    if (this.starting.has(job.id)) return;
    this.starting.add(job.id);
    try {
      await this.createJobTurn(job);
    } finally {
      this.starting.delete(job.id);
    }
  }

  private async createJobTurn(job: JobRecord): Promise<void> {
    const attempt = job.attempts;
    let previous: string | undefined = job.turn_ids.at(-1);
    if (attempt === 1 && job.respawned_from) previous = (await this.d.store.get(job.respawned_from))?.turn_ids.at(-1);
    let turnId: string;
    try {
      // The creating turn's approvals (README "Background jobs"): read from its stored request at
      // each start. Its skills were recorded with the job (JobRecord.skills); a job stored before
      // that reads them from the request too, as it always did.
      const source = job.source_turn_id ? await this.d.turnStore.getRequest(job.source_turn_id) : undefined;
      const inherited = { approvals: source?.approvals, skills: job.skills ?? source?.skills };
      const turn = await this.d.turns.create(jobTurnRequest(job, this.d.config.BACKGROUND_JOB_MAX_STEPS, previous, inherited), {
        kind: 'background_job',
        origin: { type: 'background_job', job_id: job.id },
        idempotencyKey: jobTurnKey(job.id, attempt),
      });
      turnId = turn.id;
    } catch (err) {
      // Only a deliberate refusal (a DomainError: no model, bad model_api…) fails the job; anything
      // else (a lost race on the idempotency key, the database away) is tried again by the next pass.
      if (!isDomainError(err) || TRANSIENT_START_ERRORS.has(err.code)) {
        if (!isDomainError(err)) this.d.log?.warn({ err, job_id: job.id }, 'starting a background job turn failed; retrying');
        return;
      }
      await this.move(job, { to: 'failed', error: { code: err.code, summary: err.message, retryable: false } }, null);
      return;
    }
    this.index.remember(turnId, job.id);
    // Two instances can both get here for one start (same turn by its idempotency key): only the
    // one whose write recorded the turn announces it.
    const recorded = await this.d.store.addTurn(job.id, attempt, turnId);
    if (recorded?.added) await this.emit(job.id, { type: 'job.started', attempt, turn_id: turnId, messages: job.pending_messages.length });
    if (recorded?.job.status === 'stopped') await this.cancelTurnOf(recorded.job); // stopped while its turn was being created
  }

  /** Apply a finished turn's outcome (or a failure to start) to the job, with its notice. */
  private async move(job: JobRecord, outcome: JobTurnOutcome, turnId: string | null): Promise<void> {
    const patch: JobPatch = {};
    if (outcome.to === 'succeeded') patch.output_text = outcome.output_text;
    if (outcome.to === 'waiting_on_user') patch.question = outcome.question;
    if (outcome.to === 'failed') patch.error = outcome.error;
    patch.notice = job.notify ? noticeFor({ ...job, status: outcome.to, output_text: patch.output_text ?? null, question: patch.question ?? null, error: patch.error ?? null }) : null;
    // Only at the start the outcome is of: a pass delivered late does not move a later start.
    const moved = await this.d.store.transition(job.id, outcome.to, patch, { attempt: job.attempts });
    if (!moved) return;
    if (outcome.to === 'succeeded') await this.emit(job.id, { type: 'job.succeeded', turn_id: turnId!, output_text: outcome.output_text });
    else if (outcome.to === 'waiting_on_user') await this.emit(job.id, { type: 'job.waiting_on_user', turn_id: turnId!, question: outcome.question });
    else if (outcome.to === 'failed') await this.emit(job.id, { type: 'job.failed', turn_id: turnId, error: outcome.error });
    else await this.emit(job.id, { type: 'job.stopped' });
    if (moved.notice) await this.deliver(job.id);
    this.wake(); // a slot may have been freed
  }

  private async deliver(id: string): Promise<void> {
    const job = await this.d.store.get(id);
    if (!job?.notice) return;
    const notice = job.notice;
    const how = await deliverNotice(
      {
        turns: this.d.turns,
        requestOf: (t) => this.d.turnStore.getRequest(t),
        continuations: (t) => this.d.turnStore.continuations(t, job.agent_id),
        steer: this.d.steer,
      },
      job,
      notice,
    ).catch((err: unknown) => {
      this.d.log?.warn({ err, job_id: id }, 'background job notice could not be delivered; dropped');
      return 'dropped' as const;
    });
    if (how !== 'later') await this.d.store.clearNotice(id, notice);
  }


  async cancelTurnOf(job: JobRecord): Promise<void> {
    const turnId = job.turn_ids.at(-1);
    if (!turnId) return;
    const turn = await this.d.turns.get(turnId);
    if (turn && (turn.status === 'queued' || turn.status === 'running' || turn.status === 'waiting')) await this.d.turns.cancel(turnId);
  }

  private emit(id: string, event: JobEvent): Promise<LoggedEvent<JobEvent>> {
    return this.d.events.append(id, event);
  }
}
