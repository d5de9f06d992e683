/**
 * SQLite persistence of workflows, on the shared better-sqlite3 handle. Tables (created here):
 * - `workflows(id, agent_id, title, status, concurrency, brain, model, created_at, completed_at, summary)`;
 * - `workflow_tasks(workflow_id, idx, label, prompt, result_schema, status, attempts, result, error, turn_ids)`,
 *   JSON columns as text; `result` NULL means no result.
 * Ids are UUIDv7, so `ORDER BY id DESC` is newest first and a cursor is simply the last id seen.
 */
import type { JsonObject, JsonValue } from '../runtime/json.js';
import type { Database } from '../store/database.js';
import type { ListWorkflowsQuery, TaskError, TaskStatus, WorkflowRecord, WorkflowStatus, WorkflowTask } from './types.js';

interface WorkflowRow {
  id: string;
  agent_id: string;
  title: string;
  status: WorkflowStatus;
  concurrency: number;
  brain: number;
  model: string | null;
  created_at: string;
  completed_at: string | null;
  summary: string | null;
}

interface TaskRow {
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

/** Fields of a task that change while it runs. */
export interface TaskPatch {
  status?: TaskStatus;
  attempts?: number;
  /** `null` clears it. */
  result?: JsonValue | null;
  error?: TaskError | null;
  turn_ids?: string[];
}

export class WorkflowStore {
  private readonly stmts;

  constructor(private readonly db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS workflows (
        id TEXT PRIMARY KEY,
        agent_id TEXT NOT NULL,
        title TEXT NOT NULL,
        status TEXT NOT NULL,
        concurrency INTEGER NOT NULL,
        brain INTEGER NOT NULL DEFAULT 0,
        model TEXT,
        created_at TEXT NOT NULL,
        completed_at TEXT,
        summary TEXT
      );
      CREATE INDEX IF NOT EXISTS workflows_agent ON workflows (agent_id, id);
      CREATE INDEX IF NOT EXISTS workflows_status ON workflows (status, id);
      CREATE TABLE IF NOT EXISTS workflow_tasks (
        workflow_id TEXT NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        label TEXT NOT NULL,
        prompt TEXT NOT NULL,
        result_schema TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        result TEXT,
        error TEXT,
        turn_ids TEXT NOT NULL DEFAULT '[]',
        PRIMARY KEY (workflow_id, idx)
      ) WITHOUT ROWID;
    `);
    this.stmts = {
      insertWorkflow: db.prepare(
        `INSERT INTO workflows (id, agent_id, title, status, concurrency, brain, model, created_at, completed_at, summary)
         VALUES (@id, @agent_id, @title, @status, @concurrency, @brain, @model, @created_at, @completed_at, @summary)`,
      ),
      insertTask: db.prepare(
        `INSERT INTO workflow_tasks (workflow_id, idx, label, prompt, result_schema, status, attempts, result, error, turn_ids)
         VALUES (@workflow_id, @idx, @label, @prompt, @result_schema, @status, @attempts, @result, @error, @turn_ids)`,
      ),
      getWorkflow: db.prepare('SELECT * FROM workflows WHERE id = ?'),
      getTasks: db.prepare('SELECT * FROM workflow_tasks WHERE workflow_id = ? ORDER BY idx'),
      getTask: db.prepare('SELECT * FROM workflow_tasks WHERE workflow_id = ? AND idx = ?'),
      finish: db.prepare('UPDATE workflows SET status = ?, completed_at = ?, summary = ? WHERE id = ?'),
      idsWithStatus: db.prepare('SELECT id FROM workflows WHERE status = ? ORDER BY id'),
    };
  }

  /** Insert a new workflow and its tasks in one transaction. */
  insert(wf: WorkflowRecord): void {
    this.db.transaction(() => {
      this.stmts.insertWorkflow.run({ ...wf, brain: wf.brain ? 1 : 0 });
      for (const t of wf.tasks) {
        this.stmts.insertTask.run({
          workflow_id: wf.id,
          idx: t.index,
          label: t.label,
          prompt: t.prompt,
          result_schema: JSON.stringify(t.result_schema),
          status: t.status,
          attempts: t.attempts,
          result: t.result === undefined ? null : JSON.stringify(t.result),
          error: t.error ? JSON.stringify(t.error) : null,
          turn_ids: JSON.stringify(t.turn_ids),
        });
      }
    })();
  }

  get(id: string): WorkflowRecord | undefined {
    const row = this.stmts.getWorkflow.get(id) as WorkflowRow | undefined;
    if (!row) return undefined;
    return toRecord(row, this.stmts.getTasks.all(id) as TaskRow[]);
  }

  /** One task, or undefined. */
  getTask(workflowId: string, index: number): WorkflowTask | undefined {
    const row = this.stmts.getTask.get(workflowId, index) as TaskRow | undefined;
    return row ? toTask(row) : undefined;
  }

  /** Newest first; `limit` 1..100 (default 20); `next_cursor` is the id to pass as `cursor`. */
  list(query: ListWorkflowsQuery = {}): { workflows: WorkflowRecord[]; next_cursor: string | null } {
    const where: string[] = [];
    const args: unknown[] = [];
    if (query.agent_id !== undefined) {
      where.push('agent_id = ?');
      args.push(query.agent_id);
    }
    if (query.status === 'live') where.push("status = 'running'");
    else if (query.status === 'done') where.push("status IN ('completed', 'failed', 'cancelled')");
    else if (query.status !== undefined) {
      where.push('status = ?');
      args.push(query.status);
    }
    if (query.cursor !== undefined) {
      where.push('id < ?');
      args.push(query.cursor);
    }
    const limit = Math.min(Math.max(query.limit ?? 20, 1), 100);
    const sql = `SELECT * FROM workflows ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
    const rows = this.db.prepare(sql).all(...args, limit + 1) as WorkflowRow[];
    const page = rows.slice(0, limit);
    return {
      workflows: page.map((r) => toRecord(r, this.stmts.getTasks.all(r.id) as TaskRow[])),
      next_cursor: rows.length > limit ? page[page.length - 1].id : null,
    };
  }

  /** Apply `patch` to one task. */
  updateTask(workflowId: string, index: number, patch: TaskPatch): void {
    const sets: string[] = [];
    const args: unknown[] = [];
    if (patch.status !== undefined) {
      sets.push('status = ?');
      args.push(patch.status);
    }
    if (patch.attempts !== undefined) {
      sets.push('attempts = ?');
      args.push(patch.attempts);
    }
    if (patch.result !== undefined) {
      sets.push('result = ?');
      args.push(patch.result === null ? null : JSON.stringify(patch.result));
    }
    if (patch.error !== undefined) {
      sets.push('error = ?');
      args.push(patch.error === null ? null : JSON.stringify(patch.error));
    }
    if (patch.turn_ids !== undefined) {
      sets.push('turn_ids = ?');
      args.push(JSON.stringify(patch.turn_ids));
    }
    if (sets.length === 0) return;
    this.db.prepare(`UPDATE workflow_tasks SET ${sets.join(', ')} WHERE workflow_id = ? AND idx = ?`).run(...args, workflowId, index);
  }

  /** Mark the workflow terminal. */
  finish(id: string, status: Exclude<WorkflowStatus, 'running'>, summary: string): void {
    this.stmts.finish.run(status, new Date().toISOString(), summary, id);
  }

  /** Ids of workflows in `status`, oldest first. */
  idsWithStatus(status: WorkflowStatus): string[] {
    return (this.stmts.idsWithStatus.all(status) as { id: string }[]).map((r) => r.id);
  }
}

function toTask(row: TaskRow): WorkflowTask {
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

function toRecord(row: WorkflowRow, tasks: TaskRow[]): WorkflowRecord {
  return {
    id: row.id,
    agent_id: row.agent_id,
    title: row.title,
    status: row.status,
    tasks: tasks.map(toTask),
    concurrency: row.concurrency,
    brain: row.brain === 1,
    model: row.model,
    created_at: row.created_at,
    completed_at: row.completed_at,
    summary: row.summary,
  };
}
