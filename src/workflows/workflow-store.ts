/**
 * The workflow store port: workflows and their tasks, and the row mapping both engines share.
 * Tables (same columns in either engine):
 * - `workflows(id, agent_id, title, status, concurrency, brain, model, created_at, completed_at, summary)`;
 * - `workflow_tasks(workflow_id, idx, agent_id, label, prompt, result_schema, status, attempts, result, error, turn_ids)`,
 *   JSON columns as text; `result` NULL means no result.
 * Ids are UUIDv7, so `ORDER BY id DESC` is newest first and a cursor is simply the last id seen.
 * Implementations: ./sqlite-workflow-store.ts and src/store/postgres/pg-workflow-store.ts; both
 * pass the contract suite in test/workflows/workflow-store.test.ts.
 */
import type { WorkflowFence } from '../store/lease-fence.js';
import type { JsonObject, JsonValue } from '../runtime/json.js';
import type { ListWorkflowsQuery, TaskError, TaskStatus, WorkflowRecord, WorkflowStatus, WorkflowTask } from './types.js';

/** Fields of a task that change while it runs. */
export interface TaskPatch {
  status?: TaskStatus;
  attempts?: number;
  /** `null` clears it. */
  result?: JsonValue | null;
  error?: TaskError | null;
  turn_ids?: string[];
}

/** Outcome of {@link WorkflowStore.startTask}. */
export type StartTaskOutcome =
  /** The task is now `running` with `attempts` + 1 (returned as stored). */
  | { kind: 'started'; task: WorkflowTask }
  /** The agent already runs `running` tasks (≥ the limit), in any workflow, on any instance. */
  | { kind: 'agent_limit'; running: number }
  /** The task is absent or not `queued` (cancelled, or started elsewhere). */
  | { kind: 'not_queued' };

/** A lease on a running workflow as granted (insert with a lease, {@link WorkflowStore.claimWorkflow}). */
export interface WorkflowClaim {
  /** The claim epoch (Postgres: `workflows.lease_epoch`) the driver's writes are fenced with; absent on SQLite (not fenced). */
  epoch?: number;
}

/**
 * Promise-returning so a networked database can implement it.
 *
 * Fencing (Postgres, src/store/lease-fence.ts `WorkflowFence`): the driver's writes — `updateTask`,
 * `startTask`, `finish` — take its fence and are made only while the workflow's row still shows
 * its owner and claim epoch, else they reject with `lease_lost` (`WorkflowLeaseLostError`) and
 * change nothing. A write without a fence (a task turn's accepted result) is not fenced. SQLite
 * (one process) accepts and ignores fences.
 */
export interface WorkflowStore {
  /**
   * Insert a new workflow and its tasks in one transaction (held by `lease.owner` until
   * `lease.until` when given: then resolves with the claim, its epoch on Postgres).
   */
  insert(wf: WorkflowRecord, lease?: { owner: string; until: number }): Promise<WorkflowClaim | undefined>;
  get(id: string): Promise<WorkflowRecord | undefined>;
  /** One task, or undefined. */
  getTask(workflowId: string, index: number): Promise<WorkflowTask | undefined>;
  /** Newest first; `limit` 1..100 (default 20); `next_cursor` is the id to pass as `cursor`. */
  list(query?: ListWorkflowsQuery): Promise<{ workflows: WorkflowRecord[]; next_cursor: string | null }>;
  /** Apply `patch` to one task (with `fence`: only while it holds the workflow's lease). */
  updateTask(workflowId: string, index: number, patch: TaskPatch, fence?: WorkflowFence): Promise<void>;
  /**
   * Record `result` as the accepted result of task `index` (status `succeeded`, error cleared) in
   * one conditional statement: only while the task is `running` at attempt `attempt` with
   * `turnId` as the last of its `turn_ids`, and its workflow is `running` with no cancel requested
   * (`requestCancel`, by any instance). Resolves false, writing nothing, otherwise — so the turn of
   * an attempt that is over (a stale attempt) can never mark the task succeeded, nor can a turn
   * whose workflow is being cancelled elsewhere, whatever was written between its checks and this
   * write. Not fenced: the task turn's own write, on whichever instance runs the turn.
   */
  acceptResult(workflowId: string, index: number, attempt: number, turnId: string, result: JsonValue): Promise<boolean>;
  /**
   * Atomically move a `queued` task to `running` (attempts + 1) if its agent runs fewer than
   * `agentLimit` tasks in all (WORKFLOW_MAX_RUNNING_TASKS_PER_AGENT): the count and the update
   * are one transaction under a per-agent lock, so the limit holds across instances. With `fence`:
   * only while it holds the workflow's lease.
   */
  startTask(workflowId: string, index: number, agentLimit: number, fence?: WorkflowFence): Promise<StartTaskOutcome>;
  /** Tasks of `agentId` that are `running` now, across workflows. */
  runningTasks(agentId: string): Promise<number>;
  /**
   * Mark the workflow terminal (`completed_at` = now) while it is still `running`; false when it
   * was not (finished elsewhere). With `fence`: only while it holds the workflow's lease.
   */
  finish(id: string, status: Exclude<WorkflowStatus, 'running'>, summary: string, fence?: WorkflowFence): Promise<boolean>;
  /** Ids of workflows in `status`, oldest first. */
  idsWithStatus(status: WorkflowStatus): Promise<string[]>;

  // --- leases: which instance drives a running workflow (times in ms since the epoch) ---
  /**
   * Make `owner` the driver of running workflow `id` until `until`: granted when the workflow has
   * no owner, is already `owner`'s, or its lease ended before `now`. Undefined otherwise (another
   * live instance drives it, or it is not running). A claim that hands the workflow to another
   * driver raises its epoch (Postgres); `owner` claiming its own lease again keeps it.
   */
  claimWorkflow(id: string, owner: string, now: number, until: number): Promise<WorkflowClaim | undefined>;
  /** Extend `owner`'s leases on `ids` to `until`; returns those still held and running, with whether a cancel was requested. */
  renewWorkflows(owner: string, ids: string[], until: number): Promise<{ id: string; cancelRequested: boolean }[]>;
  /** Give up `owner`'s lease on `id` (another instance may take it over at once). */
  releaseWorkflow(id: string, owner: string): Promise<void>;
  /** Running workflows nobody drives: no owner, or the lease ended before `now`; oldest first. */
  unownedWorkflows(now: number): Promise<string[]>;
  /** Store a cancel request on a running workflow (its driver sees it at its next renewal); false when not running. */
  requestCancel(id: string, at: string): Promise<boolean>;
  /** Whether a cancel was requested for `id`. */
  cancelRequested(id: string): Promise<boolean>;
  /**
   * Called once when an instance starts. An engine where one process owns the data (SQLite in
   * DATA_DIR) drops every lease of a previous process, so its workflows are taken up at once; a
   * shared engine does nothing (leases of dead instances expire on their own). Returns how many.
   */
  recoverOrphans(): Promise<number>;
}

/** A `workflows` row (`brain` is 0/1 in SQLite, a boolean in Postgres). */
export interface WorkflowRow {
  id: string;
  agent_id: string;
  title: string;
  status: WorkflowStatus;
  concurrency: number;
  brain: number | boolean;
  model: string | null;
  created_at: string;
  completed_at: string | null;
  summary: string | null;
}

/** A `workflow_tasks` row, JSON columns as text. */
export interface TaskRow {
  workflow_id: string;
  idx: number;
  label: string;
  prompt: string;
  result_schema: string;
  status: TaskStatus;
  attempts: number;
  result: string | null;
  error: string | null;
  turn_ids: string;
}

/** The task's row values for an INSERT (without `workflow_id` / `agent_id`). */
export function taskColumns(t: WorkflowTask) {
  return {
    idx: t.index,
    label: t.label,
    prompt: t.prompt,
    result_schema: JSON.stringify(t.result_schema),
    status: t.status,
    attempts: t.attempts,
    result: t.result === undefined ? null : JSON.stringify(t.result),
    error: t.error ? JSON.stringify(t.error) : null,
    turn_ids: JSON.stringify(t.turn_ids),
  };
}

/** `[column, value]` pairs of `patch`, values as stored (JSON text). */
export function patchColumns(patch: TaskPatch): [string, unknown][] {
  const out: [string, unknown][] = [];
  if (patch.status !== undefined) out.push(['status', patch.status]);
  if (patch.attempts !== undefined) out.push(['attempts', patch.attempts]);
  if (patch.result !== undefined) out.push(['result', patch.result === null ? null : JSON.stringify(patch.result)]);
  if (patch.error !== undefined) out.push(['error', patch.error === null ? null : JSON.stringify(patch.error)]);
  if (patch.turn_ids !== undefined) out.push(['turn_ids', JSON.stringify(patch.turn_ids)]);
  return out;
}

/** Page size of {@link WorkflowStore.list}: 1..100, default 20. */
export const workflowPageLimit = (limit: number | undefined) => Math.min(Math.max(limit ?? 20, 1), 100);

export function toTask(row: TaskRow): WorkflowTask {
  const task: WorkflowTask = {
    index: row.idx,
    label: row.label,
    prompt: row.prompt,
    result_schema: JSON.parse(row.result_schema) as JsonObject,
    status: row.status,
    attempts: row.attempts,
    turn_ids: JSON.parse(row.turn_ids) as string[],
  };
  if (row.result !== null) task.result = JSON.parse(row.result) as JsonValue;
  if (row.error !== null) task.error = JSON.parse(row.error) as TaskError;
  return task;
}

export function toRecord(row: WorkflowRow, tasks: TaskRow[]): WorkflowRecord {
  return {
    id: row.id,
    agent_id: row.agent_id,
    title: row.title,
    status: row.status,
    tasks: tasks.map(toTask),
    concurrency: row.concurrency,
    brain: row.brain === 1 || row.brain === true,
    model: row.model,
    created_at: row.created_at,
    completed_at: row.completed_at,
    summary: row.summary,
  };
}
