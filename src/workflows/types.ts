/**
 * Workflow model (README.md "Workflows"): a workflow runs several tasks, each as its own isolated workflow task
 * turn, and collects each task's structured result. Times are ISO 8601 strings.
 */
import { DomainError } from '../errors.js';
import type { JsonObject, JsonValue } from '../runtime/json.js';
import type { PublishedEventLog } from '../store/published-event-log.js';
import type { WorkflowEvent } from './events.js';

export const WORKFLOW_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];
export const TASK_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Task failure codes: `schema_noncompliance` (prose, never submitted; not retried),
 * `max_steps` (the task turn used its step limit without an accepted submission; not retried),
 * `empty_output` (no text at all; retried), a turn's own error code (model/infra; retried),
 * `interrupted`, `cancelled`. */
export interface TaskError {
  code: string;
  message: string;
}

export interface WorkflowTask {
  /** 0-based position in the workflow. */
  index: number;
  label: string;
  prompt: string;
  /** The persisted result schema (the allowed subset, see result-schema.ts). */
  result_schema: JsonObject;
  status: TaskStatus;
  /** Task turns started so far (1..MAX_TASK_ATTEMPTS). */
  attempts: number;
  /** The submitted value, exactly as accepted (status succeeded). */
  result?: JsonValue;
  error?: TaskError;
  /** One turn id per attempt, oldest first; each is a normal turn (GET /v1/turns/{id}). */
  turn_ids: string[];
}

export interface WorkflowRecord {
  id: string;
  agent_id: string;
  title: string;
  status: WorkflowStatus;
  tasks: WorkflowTask[];
  /** Task turns of this workflow running at once (1..32). */
  concurrency: number;
  /** Task turns get recall/get_page. */
  brain: boolean;
  /** Model for the task turns (null: the server's MODEL). */
  model: string | null;
  created_at: string;
  completed_at: string | null;
  /** Set when terminal: e.g. "3 succeeded, 1 failed (task 2 \"x\": schema_noncompliance)". */
  summary: string | null;
}

/** Input of POST /v1/workflows and `workflow_start`. */
export interface CreateWorkflowInput {
  agent_id: string;
  title: string;
  tasks: { label: string; prompt: string; result_schema: unknown }[];
  concurrency?: number;
  brain?: boolean;
  model?: string;
}

export interface ListWorkflowsQuery {
  agent_id?: string;
  /** A status, or `live` (running) / `done` (terminal). */
  status?: WorkflowStatus | 'live' | 'done';
  /** Max items (1..100, default 20). */
  limit?: number;
  /** Opaque cursor from a previous page's `next_cursor`. */
  cursor?: string;
}

export interface WorkflowPage {
  workflows: WorkflowRecord[];
  next_cursor: string | null;
}

/** The workflow control plane, used by routes/workflows.ts and the `workflow` tool family. */
export interface WorkflowService {
  /**
   * Validate (result-schema subset, limits), persist and start a workflow.
   * @throws WorkflowInputError (details: one {path, code, message} per violation) → HTTP 400 / tool `Error:`.
   */
  create(input: CreateWorkflowInput): Promise<WorkflowRecord>;
  get(id: string): Promise<WorkflowRecord | undefined>;
  list(query?: ListWorkflowsQuery): Promise<WorkflowPage>;
  /** Abort running task turns, mark queued tasks cancelled. A terminal workflow is returned unchanged. */
  cancel(id: string): Promise<WorkflowRecord | undefined>;
  /** The workflows' event log (stream id = workflow id). */
  readonly events: PublishedEventLog<WorkflowEvent>;
  /** Resolves when the workflow is terminal (tests, `?wait`). */
  waitForTerminal(id: string, signal?: AbortSignal): Promise<WorkflowRecord>;
}

/**
 * One violation of a workflow request: `path` spelled like a 400 `invalid_request`'s
 * (`tasks[1].result_schema.properties.x.anyOf`), a `code` (`invalid_type`, `invalid_format`,
 * `too_small`, `too_big`, `unsupported_schema`) and a `message` that follows the path.
 */
export interface WorkflowIssue {
  path: string;
  code: string;
  message: string;
}

/** Bad workflow input: 400 `{error: {code: 'invalid_workflow', message, details}}`, details one {@link WorkflowIssue} per violation. */
export class WorkflowInputError extends DomainError {
  declare readonly details: WorkflowIssue[];
  constructor(message: string, details: WorkflowIssue[] = []) {
    super('invalid_workflow', message, 400, details);
  }
}
