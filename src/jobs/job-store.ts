/**
 * The job store port (both engines) and the row mapping they share. Table `background_jobs`
 * (same columns in SQLite and Postgres; JSON as text, times as ISO text); ids are UUIDv7, so
 * `ORDER BY id DESC` is newest first and a cursor is the last id seen. A job created by a tool
 * call is unique per `(source_turn_id, source_call_id)`: a retried round gets the first job back.
 *
 * Every status change is a conditional UPDATE from the statuses ./transitions.ts allows, so two
 * instances (or a stop racing a finish) never both move a job. `start` counts the agent's running
 * jobs and starts one in one transaction under a per-agent lock, so
 * BACKGROUND_JOBS_MAX_RUNNING_PER_AGENT holds across instances.
 *
 * Implementations: ./sqlite-job-store.ts, src/store/postgres/pg-job-store.ts; contract suite:
 * test/jobs/job-store.contract.test.ts.
 */
import type { JobApproval, JobError, JobPage, JobRecord, JobStatus, ListJobsQuery } from './types.js';

/** Fields that change with a status move. `null` clears. */
export interface JobPatch {
  question?: string | null;
  output_text?: string | null;
  error?: JobError | null;
  /** A notice for the owner still to deliver (set with the move that causes it; cleared once delivered). */
  notice?: string | null;
  /** The calls waiting for a decision (set entering waiting_on_approval, `[]` leaving it). */
  pending_approvals?: JobApproval[];
}

/** Narrow a transition to some of the statuses the table allows (e.g. running only from waiting_on_approval). */
export interface TransitionOptions {
  from?: readonly JobStatus[];
  /**
   * Only while the job is at this start (its `attempts`): a move decided from one start's turn
   * (its outcome, its wait for approvals) is refused once the job has moved on to a later start —
   * as a pass's statement delivered late by a hung connection would otherwise find the job back in
   * a status it may move from (running again, after an answer) and move it with the old turn's
   * outcome. The attempt is the jobs' fencing epoch: every start raises it.
   */
  attempt?: number;
}

/** The statuses a move to `to` may start from: the table's, narrowed by `opts.from`. */
export function transitionSources(to: JobStatus, opts: TransitionOptions | undefined, sources: JobStatus[]): JobStatus[] {
  return opts?.from ? sources.filter((s) => opts.from!.includes(s)) : sources;
}

export type InsertJobOutcome =
  | { kind: 'created'; job: JobRecord }
  /** A job with the same source turn and call exists (returned). */
  | { kind: 'exists'; job: JobRecord }
  | { kind: 'source_not_found' }
  | { kind: 'source_not_terminal'; status: JobStatus }
  | { kind: 'already_respawned'; by: string };

export type StartJobOutcome =
  /** Now `running`, attempts + 1 (its pending messages are cleared when the attempt's turn is recorded). */
  | { kind: 'started'; job: JobRecord }
  /** The agent already runs this many jobs (≥ the limit). */
  | { kind: 'agent_limit'; running: number }
  /** Absent, or not in the status asked for. */
  | { kind: 'not_startable' };

export interface JobStore {
  /**
   * Insert a new job (status as given, normally `queued`). With `respawnOf`, in the same
   * transaction: the source must exist, be terminal and not respawned yet; it is marked
   * `respawned_to` = the new id.
   */
  insert(job: JobRecord, opts?: { respawnOf?: string }): Promise<InsertJobOutcome>;
  get(id: string): Promise<JobRecord | undefined>;
  /** Newest first. */
  list(query: ListJobsQuery): Promise<JobPage>;
  /**
   * Move the job to `to` (from any status the transition table allows), applying `patch`;
   * terminal statuses set `finished_at` and clear pending messages. Undefined when the job is
   * absent or its status does not allow the move.
   */
  transition(id: string, to: JobStatus, patch?: JobPatch, opts?: TransitionOptions): Promise<JobRecord | undefined>;
  /**
   * Replace the pending approvals of a job that is `waiting_on_approval` (a call of the round was
   * decided, or another asked) if they are still `from` (so of two instances seeing the same
   * change, one records it); undefined when the job is in another status or its list changed.
   */
  setPendingApprovals(id: string, from: JobApproval[], to: JobApproval[]): Promise<JobRecord | undefined>;
  /** Move `from` (queued, or waiting_on_user for an answer) → running if the agent runs fewer than `limit` jobs. */
  start(id: string, from: 'queued' | 'waiting_on_user', limit: number): Promise<StartJobOutcome>;
  /**
   * Record the turn of start number `attempt` (1-based) and clear the pending messages (that turn
   * delivered them). `added` is true only for the call that recorded it: a second call for the same
   * attempt (another instance's, even with the same turn id) changes nothing and gets `added: false`,
   * so exactly one caller announces the start. Undefined when the job does not exist.
   */
  addTurn(id: string, attempt: number, turnId: string): Promise<{ job: JobRecord; added: boolean } | undefined>;
  /** Append a pending message while the job is in one of `statuses`; undefined otherwise. */
  addPending(id: string, message: string, statuses: readonly JobStatus[]): Promise<JobRecord | undefined>;
  /** Ids of jobs in these statuses, oldest first. */
  idsWithStatus(statuses: readonly JobStatus[]): Promise<string[]>;
  /** Clear the notice if it is still `notice` (delivered). */
  clearNotice(id: string, notice: string): Promise<void>;
  /** Ids of jobs with a notice to deliver, oldest first. */
  idsWithNotice(): Promise<string[]>;
  /** Jobs of `agentId` running now. */
  runningCount(agentId: string): Promise<number>;
}

/**
 * A `background_jobs` row: the record's columns, with the JSON ones as text and `notify` 0/1 in
 * SQLite, boolean in Postgres.
 */
export type JobRow = Omit<JobRecord, 'notify' | 'turn_ids' | 'pending_messages' | 'pending_approvals' | 'error' | 'skills'> & {
  notify: number | boolean;
  turn_ids: string;
  pending_messages: string;
  pending_approvals: string;
  error: string | null;
  /** JSON text of the names; null (also for a row stored before the column) → none recorded. */
  skills: string | null;
};

/** Column order of INSERTs (both engines). */
export const JOB_COLUMNS = [
  'id', 'agent_id', 'title', 'task', 'status', 'model', 'source_turn_id', 'source_call_id', 'respawned_from', 'respawned_to',
  'notify', 'turn_ids', 'pending_messages', 'pending_approvals', 'question', 'notice', 'output_text', 'error', 'attempts', 'created_at', 'started_at', 'finished_at', 'updated_at',
  'skills',
] as const;

/** Values of `job` in {@link JOB_COLUMNS} order (`notify` as the engine wants it). */
export function jobValues(job: JobRecord, notify: (b: boolean) => unknown): unknown[] {
  const row: Record<string, unknown> = {
    ...job,
    notify: notify(job.notify),
    turn_ids: JSON.stringify(job.turn_ids),
    pending_messages: JSON.stringify(job.pending_messages),
    pending_approvals: JSON.stringify(job.pending_approvals),
    error: job.error ? JSON.stringify(job.error) : null,
    skills: job.skills ? JSON.stringify(job.skills) : null,
  };
  return JOB_COLUMNS.map((c) => row[c] ?? null);
}

export function toJob(row: JobRow): JobRecord {
  return {
    ...row,
    notify: row.notify === 1 || row.notify === true,
    turn_ids: JSON.parse(row.turn_ids) as string[],
    pending_messages: JSON.parse(row.pending_messages) as string[],
    pending_approvals: JSON.parse(row.pending_approvals ?? '[]') as JobApproval[],
    error: row.error ? (JSON.parse(row.error) as JobError) : null,
    skills: row.skills ? (JSON.parse(row.skills) as string[]) : null,
    attempts: Number(row.attempts),
  };
}

/** `[column, value]` pairs of a transition to `to` with `patch`, at time `now`. */
export function transitionColumns(to: JobStatus, patch: JobPatch, now: string, terminal: boolean): [string, unknown][] {
  const cols: [string, unknown][] = [['status', to], ['updated_at', now]];
  if (patch.question !== undefined) cols.push(['question', patch.question]);
  if (patch.output_text !== undefined) cols.push(['output_text', patch.output_text]);
  if (patch.error !== undefined) cols.push(['error', patch.error === null ? null : JSON.stringify(patch.error)]);
  if (patch.notice !== undefined) cols.push(['notice', patch.notice]);
  if (patch.pending_approvals !== undefined && !terminal) cols.push(['pending_approvals', JSON.stringify(patch.pending_approvals)]);
  if (terminal) cols.push(['finished_at', now], ['pending_messages', '[]'], ['pending_approvals', '[]']);
  return cols;
}

/** Page size of {@link JobStore.list}: 1..100, default 20. */
export const jobPageLimit = (limit: number | undefined) => Math.min(Math.max(limit ?? 20, 1), 100);
