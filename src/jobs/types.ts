/**
 * Background job model (README.md "Background jobs"): long agent work a main turn hands off, run as
 * one or more durable turns of kind `background_job` (a new turn each time the job resumes after
 * an answer), in the same agent's home. Times are ISO 8601 strings; ids are UUIDv7.
 */

/** Every status of a job; allowed moves: ./transitions.ts. */
export const JOB_STATUSES = ['queued', 'running', 'waiting_on_user', 'waiting_on_approval', 'succeeded', 'failed', 'stopped'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Not finished: waiting for a slot, running, waiting for an answer, or waiting for a person's approval of a call. */
export const LIVE_JOB_STATUSES = ['queued', 'running', 'waiting_on_user', 'waiting_on_approval'] as const satisfies readonly JobStatus[];
/** Finished for good (a message cannot wake it; respawn makes a new job). */
export const TERMINAL_JOB_STATUSES = ['succeeded', 'failed', 'stopped'] as const satisfies readonly JobStatus[];
export type TerminalJobStatus = (typeof TERMINAL_JOB_STATUSES)[number];

export function isTerminalJobStatus(s: JobStatus): s is TerminalJobStatus {
  return (TERMINAL_JOB_STATUSES as readonly JobStatus[]).includes(s);
}

/** Why a job failed: the job turn's error code, a one-line summary, and whether trying again may help. */
export interface JobError {
  code: string;
  summary: string;
  retryable: boolean;
}

/**
 * A call of the job's current turn waiting for a person's decision (status `waiting_on_approval`):
 * decide it at POST /v1/turns/{turn_id}/approvals (README "Tool approvals").
 */
export interface JobApproval {
  turn_id: string;
  call_id: string;
  /** The tool (`name` or `namespace.name`). */
  name: string;
  /** What the call would do (its activity label), or null. */
  label: string | null;
  /** ISO 8601: after it the call is rejected with reason `timed out`. */
  expires_at: string;
}

/** A stored job (GET /v1/jobs/{id} adds `links`). */
export interface JobRecord {
  id: string;
  agent_id: string;
  /** For people (lists, notices); never sent to the job's model. 1..200 characters. */
  title: string;
  /** The job's first user message, verbatim. */
  task: string;
  status: JobStatus;
  /** Model of the job's turns; null → the creating turn's model at start. */
  model: string | null;
  /**
   * The skills of the job's turns (names), recorded when the job was created: the creating turn's
   * `skills`, else the agent's enabled list then (so enabling or disabling a skill later changes
   * no job already made). Null for a job stored before this was recorded, or made without a skill
   * registry: its turns read the creating turn's request at each start. Not shown by the API.
   */
  skills: string[] | null;
  /** The turn (and its call) that created the job; null for jobs made another way. */
  source_turn_id: string | null;
  source_call_id: string | null;
  /** The terminal job this one continues (same transcript, same home), or null. */
  respawned_from: string | null;
  /** The job that continues this one, once respawned (a job is respawned at most once). */
  respawned_to: string | null;
  /** Tell the owner when it succeeds, fails or starts waiting (a follow-up turn or a steering message). */
  notify: boolean;
  /** The job's turns, oldest first: one per start (the first, and each resume after an answer). */
  turn_ids: string[];
  /** Messages sent while queued or waiting, delivered as user messages when the job (re)starts. */
  pending_messages: string[];
  /** The question the job asked (status waiting_on_user); null otherwise. */
  question: string | null;
  /** The calls its turn waits on a person to approve or reject (status waiting_on_approval); empty otherwise. */
  pending_approvals: JobApproval[];
  /** A notice for the owner not delivered yet (null once delivered, or when there is none). */
  notice: string | null;
  /** The final answer text of a succeeded job. */
  output_text: string | null;
  error: JobError | null;
  /** How many times the job started (its turns so far). */
  attempts: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

/** GET /v1/jobs and list_background_jobs filters. */
export interface ListJobsQuery {
  agent_id?: string;
  statuses?: readonly JobStatus[];
  /** Jobs with id < cursor (older). */
  cursor?: string;
  /** 1..100 [20]. */
  limit?: number;
}

export interface JobPage {
  jobs: JobRecord[];
  next_cursor: string | null;
}
