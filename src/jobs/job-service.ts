/**
 * The background job service: creates jobs (from a tool call, idempotent per call), starts them
 * as turns of kind `background_job` while the agent runs fewer than
 * BACKGROUND_JOBS_MAX_RUNNING_PER_AGENT, follows their turns to the job's next status (one
 * transition table, ./transitions.ts), delivers messages (queued → at the start; running →
 * steering; waiting_on_user → the answer resumes it; waiting_on_approval → steering once a person
 * decided the calls its turn waits on), stops them, respawns finished ones, and
 * tells the owner of outcomes (./notice-delivery.ts). What moves jobs on its own (the passes, the
 * mirror of job turn activity) is ./job-driver.ts.
 */
import { uuidv7 } from 'uuidv7';
import { DomainError, idempotencyKeyReused } from '../errors.js';
import { notFound } from '../http/errors.js';
import type { LoggedEvent } from '../store/event-log.js';
import type { PublishedEventLog } from '../store/published-event-log.js';
import type { JobEvent } from './events.js';
import type { ClarifyPolicyResolver } from '../tools/clarify/policy.js';
import { followUntil } from './follow.js';
import { jobClarifyPolicy } from './job-clarify.js';
import { TurnJobIndex } from './turn-job-index.js';
import { JOB_NOTICE_MAX_DEPTH, noticeDepth } from './notice-depth.js';
import { JobDriver, type JobServiceDeps } from './job-driver.js';
import { jobProgress, type JobProgress } from './progress.js';
import { replyFinder, type JobReply } from './reply.js';
import { isTerminalJobStatus, type JobPage, type JobRecord, type ListJobsQuery } from './types.js';

export { JOB_POLL_MS, type JobServiceDeps } from './job-driver.js';

/** A new job as a tool (or another service) asks for it. */
export interface CreateJobInput {
  agent_id: string;
  title: string;
  task: string;
  model?: string;
  /** Tell the owner of the outcome [true]. */
  notify?: boolean;
  /** The creating turn and call: a second create from the same call returns the first job. */
  source?: { turn_id: string; call_id: string };
}

/**
 * The skills a new job's turns get (JobRecord.skills), fixed now: the creating turn's `skills`
 * when it sent them; else, for a respawn without a creating turn, the respawned job's; else the
 * agent's enabled list now (`deps.skills`); null when none of these is known (no skill registry:
 * its turns then read the creating turn's request, or the agent's list, when they start).
 */
async function skillsAtCreation(d: Pick<JobServiceDeps, 'turnStore' | 'skills'>, input: CreateJobInput, respawnOf: JobRecord | undefined): Promise<string[] | null> {
  const request = input.source ? await d.turnStore.getRequest(input.source.turn_id) : undefined;
  if (request?.skills !== undefined) return [...request.skills];
  if (!input.source && respawnOf?.skills) return respawnOf.skills;
  return d.skills ? d.skills.enabledFor(input.agent_id) : null;
}

export type MessageDelivery = 'queued' | 'steering' | 'answer';

/** A delivered message: the job after it, how it was delivered, the seq to follow the job's stream after, the steering message's id (else null). */
export interface SentJobMessage {
  job: JobRecord;
  delivery: MessageDelivery;
  seq: number;
  message_id: string | null;
}

/** The idempotency-key scope of messages to jobs (its own key space: README "Idempotency"). */
export const JOB_MESSAGE_KEY_SCOPE = 'job_message';

export class JobService {
  readonly events: PublishedEventLog<JobEvent>;
  /** What a `clarify` call of a job turn tells its model (./job-clarify.ts); for ServiceRegistry.clarifyPolicy. */
  readonly clarifyPolicy: ClarifyPolicyResolver;
  private readonly driver: JobDriver;

  constructor(private readonly d: JobServiceDeps) {
    this.events = d.events;
    this.driver = new JobDriver(d);
    const index = new TurnJobIndex(d.turnStore);
    this.clarifyPolicy = jobClarifyPolicy({
      maxQuestions: d.config.BACKGROUND_JOB_MAX_QUESTIONS,
      jobOfTurn: async (turnId) => {
        const id = await index.jobOf(turnId);
        return id ? this.d.store.get(id) : undefined;
      },
    });
  }

  /** The turn-event observer (mirrors job turn activity; wakes the passes). */
  observeTurnEvent(logged: LoggedEvent): Promise<void> | undefined {
    return this.driver.observeTurnEvent(logged);
  }

  /** A turn paused for approvals (the turn runner's `onWaiting`): a job's turn moves its job to waiting_on_approval at once. */
  observeTurnWaiting(turnId: string): Promise<void> {
    return this.driver.observeTurnWaiting(turnId);
  }

  /** Start moving jobs (call before the turn service runs turns). */
  startPasses(): void {
    this.driver.startPasses();
  }

  stopPasses(): void {
    this.driver.stopPasses();
  }

  /**
   * Create a queued job (idempotent per `source`). `created: false` when the source call made one
   * before. `notify_limited`: notify was asked for, but the source turn is a follow-up of job
   * notices {@link JOB_NOTICE_MAX_DEPTH} deep, so the job does not notify (./notice-depth.ts).
   */
  async create(input: CreateJobInput, respawnOf?: JobRecord): Promise<{ job: JobRecord; created: boolean; notify_limited: boolean }> {
    const now = new Date().toISOString();
    const wantsNotice = input.notify ?? true;
    const notify_limited = wantsNotice && input.source !== undefined && (await this.noticeDepthOf(input.source.turn_id)) >= JOB_NOTICE_MAX_DEPTH;
    const job: JobRecord = {
      id: uuidv7(),
      agent_id: input.agent_id,
      title: input.title,
      task: input.task,
      status: 'queued',
      model: input.model ?? respawnOf?.model ?? null,
      skills: await skillsAtCreation(this.d, input, respawnOf),
      source_turn_id: input.source?.turn_id ?? null,
      source_call_id: input.source?.call_id ?? null,
      respawned_from: respawnOf?.id ?? null,
      respawned_to: null,
      notify: wantsNotice && !notify_limited,
      turn_ids: [],
      pending_messages: respawnOf ? [input.task] : [],
      question: null,
      pending_approvals: [],
      notice: null,
      output_text: null,
      error: null,
      attempts: 0,
      created_at: now,
      started_at: null,
      finished_at: null,
      updated_at: now,
    };
    const out = await this.d.store.insert(job, respawnOf ? { respawnOf: respawnOf.id } : undefined);
    if (out.kind === 'exists') return { job: out.job, created: false, notify_limited: notify_limited && !out.job.notify };
    if (out.kind === 'source_not_found') throw new DomainError('job_not_found', `no background job ${respawnOf?.id}`, 404);
    if (out.kind === 'source_not_terminal') {
      throw new DomainError('job_not_finished', `background job ${respawnOf?.id} is ${out.status}; only a succeeded, failed or stopped job can be respawned (send it a message instead)`, 409);
    }
    if (out.kind === 'already_respawned') {
      throw new DomainError('job_already_respawned', `background job ${respawnOf?.id} was already respawned as ${out.by}; continue that one`, 409, { job_id: out.by });
    }
    await this.emit(job.id, { type: 'job.created', job_id: job.id, agent_id: job.agent_id, title: job.title, respawned_from: job.respawned_from });
    this.driver.wake();
    return { job: out.job, created: true, notify_limited };
  }

  /** How many job-notice follow-up turns lead to turn `turnId` (./notice-depth.ts). */
  noticeDepthOf(turnId: string): Promise<number> {
    return noticeDepth({ turn: (id) => this.d.turns.get(id), job: (id) => this.d.store.get(id) }, turnId);
  }

  /**
   * A new queued job continuing terminal job `sourceId`'s transcript in the same home, with
   * `message` as its first user message; the title is the source's.
   * @throws DomainError 404 `job_not_found`, 409 `job_not_finished` / `job_already_respawned`.
   */
  async respawn(sourceId: string, message: string, agentId: string, source?: CreateJobInput['source']): Promise<{ job: JobRecord; created: boolean; notify_limited: boolean }> {
    const src = await this.d.store.get(sourceId);
    if (!src || src.agent_id !== agentId) throw new DomainError('job_not_found', `no background job ${sourceId}; list_background_jobs shows yours`, 404);
    return this.create({ agent_id: src.agent_id, title: src.title, task: message, notify: src.notify, source }, src);
  }

  get(id: string): Promise<JobRecord | undefined> {
    return this.d.store.get(id);
  }

  list(query: ListJobsQuery): Promise<JobPage> {
    return this.d.store.list(query);
  }

  /**
   * {@link send} at most once per idempotency `key` (README "Idempotency"): the first request
   * delivers; a repeat with the same `hash` (of job id and message) delivers nothing and answers
   * the first delivery (`delivery`, `seq`, `message_id`) with the job as it is now (`replayed:
   * true`) — like every replayed create, the resource is shown current, not as it was. Without a
   * key (or without key storage): a plain `send`; undefined when the job is unknown.
   * @throws DomainError 409 `idempotency_key_reused` (same key, another body — another job
   *   included; details `{job_id}` of the first), and `send`'s errors (the key is then free again).
   */
  async sendOnce(id: string, message: string, key: string | undefined, hash: string): Promise<{ value: SentJobMessage | undefined; replayed: boolean }> {
    const keys = this.d.idempotency;
    if (key === undefined || !keys) return { value: await this.send(id, message), replayed: false };
    // Resource id of a delivery: `<job id> <delivery> <seq> <message id or ->` (the job is read anew on replay).
    const parse = (rid: string) => {
      const [jobId, delivery, seq, messageId] = rid.split(' ');
      return { jobId, delivery: delivery as MessageDelivery, seq: Number(seq), messageId: messageId === '-' ? null : messageId };
    };
    const known = await keys.find(JOB_MESSAGE_KEY_SCOPE, key);
    if (known && known.request_hash !== hash) throw idempotencyKeyReused('job', known.resource_id ? parse(known.resource_id).jobId : id);
    return keys.run<SentJobMessage | undefined>(JOB_MESSAGE_KEY_SCOPE, key, hash, {
      create: async () => {
        const sent = await this.send(id, message);
        if (!sent) throw notFound('job', id);
        return sent;
      },
      idOf: (s) => `${s!.job.id} ${s!.delivery} ${s!.seq} ${s!.message_id ?? '-'}`,
      load: async (rid) => {
        const r = parse(rid);
        const job = await this.d.store.get(r.jobId);
        return job && { job, delivery: r.delivery, seq: r.seq, message_id: r.messageId };
      },
    });
  }

  /** Progress over the job's turns and its recent activity (./progress.ts). */
  progress(job: JobRecord): Promise<JobProgress> {
    return jobProgress(this.events, (id) => this.d.turns.get(id), job);
  }

  /** Stop a job (running tools are aborted); a finished job is returned unchanged. Undefined when unknown. */
  async stop(id: string): Promise<JobRecord | undefined> {
    const job = await this.d.store.get(id);
    if (!job || isTerminalJobStatus(job.status)) return job;
    const stopped = await this.d.store.transition(id, 'stopped', { notice: null });
    if (!stopped) return this.d.store.get(id); // it finished meanwhile
    await this.emit(id, { type: 'job.stopped' });
    await this.driver.cancelTurnOf(stopped);
    return this.d.store.get(id);
  }

  /**
   * Deliver `message`: queued → kept and delivered when it starts; waiting_on_user → answers the
   * question and resumes it (queued again when the agent has no free slot); running or
   * waiting_on_approval → a steering message applied between rounds of its turn (for a job waiting
   * on approvals: after the decisions, when the turn runs again). Returns the job, how it was delivered, the seq to
   * follow the job's stream after for the reply, and the steering message's id (null otherwise).
   * @throws DomainError 409 `job_finished` (terminal), 409 `steering_unavailable`.
   */
  async send(id: string, message: string): Promise<SentJobMessage | undefined> {
    for (let tries = 0; tries < 5; tries++) {
      const job = await this.d.store.get(id);
      if (!job) return undefined;
      if (isTerminalJobStatus(job.status)) {
        throw new DomainError('job_finished', `background job ${id} has ${job.status}; a message cannot reach it (the agent can continue it as a new job with its respawn_background_job tool, from a turn)`, 409, { status: job.status });
      }
      if (job.status === 'queued' || job.status === 'waiting_on_user') {
        const delivery: MessageDelivery = job.status === 'queued' ? 'queued' : 'answer';
        if (!(await this.d.store.addPending(id, message, [job.status]))) continue; // moved meanwhile
        const { seq } = await this.emit(id, { type: 'job.message', message, delivery, message_id: null });
        if (delivery === 'answer') await this.driver.resume(id);
        else this.driver.wake();
        return { job: (await this.d.store.get(id))!, delivery, seq, message_id: null };
      }
      const turnId = await this.currentTurn(job);
      if (!turnId) continue;
      if (!this.d.steer) throw new DomainError('steering_unavailable', 'this server cannot deliver messages to a running job', 409);
      // Follow from before the steering message: its `job.message_applied` may come before `job.message`.
      const seq = await this.events.lastSeq(id);
      const steered = await this.d.steer(turnId, message);
      if (!steered) continue; // the turn ended meanwhile: deliver by the job's new status
      await this.emit(id, { type: 'job.message', message, delivery: 'steering', message_id: steered.message_id });
      return { job: (await this.d.store.get(id))!, delivery: 'steering', seq, message_id: steered.message_id };
    }
    throw new DomainError('job_busy', `background job ${id} kept changing status; try again`, 409);
  }

  /** The job's reply after the message whose `job.message` event is `seq`, or undefined on timeout. */
  waitForReply(id: string, sent: { seq: number; delivery: MessageDelivery; message_id: string | null }, timeoutMs: number, signal?: AbortSignal): Promise<JobReply | undefined> {
    return followUntil(this.events, id, sent.seq, timeoutMs, replyFinder(sent.delivery, sent.message_id), signal);
  }

  /** The turn of the job's current start, waiting briefly while it is being created. */
  private async currentTurn(job: JobRecord): Promise<string | undefined> {
    let j: JobRecord | undefined = job;
    for (let i = 0; i < 50 && j && (j.status === 'running' || j.status === 'waiting_on_approval'); i++) {
      if (j.turn_ids.length === j.attempts) return j.turn_ids.at(-1);
      await new Promise((r) => setTimeout(r, 100));
      j = await this.d.store.get(job.id);
    }
    return undefined;
  }

  private emit(id: string, event: JobEvent): Promise<LoggedEvent<JobEvent>> {
    return this.d.events.append(id, event);
  }
}
