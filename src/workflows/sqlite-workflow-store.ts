/**
 * The workflow store on SQLite (tables created here on the shared better-sqlite3 handle; columns
 * in ./workflow-store.ts). `startTask` counts and updates in one `BEGIN IMMEDIATE` transaction, so
 * the per-agent running limit holds for every process on the database file. Databases created
 * before `workflow_tasks.agent_id` (or the lease columns `owner`, `lease_until`,
 * `cancel_requested_at`) existed get the columns added at open. Lease fences are accepted and
 * ignored (one process has DATA_DIR to itself: src/store/lease-fence.ts); claims carry no epoch.
 */
import type { Database } from '../store/database.js';
import type { JsonValue } from '../runtime/json.js';
import type { ListWorkflowsQuery, WorkflowRecord, WorkflowStatus, WorkflowTask } from './types.js';
import {
  patchColumns,
  taskColumns,
  toRecord,
  toTask,
  workflowPageLimit,
  type StartTaskOutcome,
  type TaskPatch,
  type TaskRow,
  type WorkflowRow,
  type WorkflowClaim,
  type WorkflowStore,
} from './workflow-store.js';

export class SqliteWorkflowStore implements WorkflowStore {
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
    const columns = db.prepare(`SELECT name FROM pragma_table_info('workflow_tasks')`).all() as { name: string }[];
    if (!columns.some((c) => c.name === 'agent_id')) {
      db.exec(`ALTER TABLE workflow_tasks ADD COLUMN agent_id TEXT NOT NULL DEFAULT '';
        UPDATE workflow_tasks SET agent_id = (SELECT agent_id FROM workflows WHERE workflows.id = workflow_tasks.workflow_id);`);
    }
    db.exec(`CREATE INDEX IF NOT EXISTS workflow_tasks_running ON workflow_tasks (agent_id) WHERE status = 'running'`);
    const wfColumns = (db.prepare(`SELECT name FROM pragma_table_info('workflows')`).all() as { name: string }[]).map((c) => c.name);
    for (const [name, type] of [['owner', 'TEXT'], ['lease_until', 'INTEGER'], ['cancel_requested_at', 'TEXT']]) {
      if (!wfColumns.includes(name)) db.exec(`ALTER TABLE workflows ADD COLUMN ${name} ${type}`);
    }
    this.stmts = {
      insertWorkflow: db.prepare(
        `INSERT INTO workflows (id, agent_id, title, status, concurrency, brain, model, created_at, completed_at, summary, owner, lease_until)
         VALUES (@id, @agent_id, @title, @status, @concurrency, @brain, @model, @created_at, @completed_at, @summary, @owner, @lease_until)`,
      ),
      insertTask: db.prepare(
        `INSERT INTO workflow_tasks (workflow_id, idx, agent_id, label, prompt, result_schema, status, attempts, result, error, turn_ids)
         VALUES (@workflow_id, @idx, @agent_id, @label, @prompt, @result_schema, @status, @attempts, @result, @error, @turn_ids)`,
      ),
      getWorkflow: db.prepare('SELECT * FROM workflows WHERE id = ?'),
      getTasks: db.prepare('SELECT * FROM workflow_tasks WHERE workflow_id = ? ORDER BY idx'),
      getTask: db.prepare('SELECT * FROM workflow_tasks WHERE workflow_id = ? AND idx = ?'),
      running: db.prepare(`SELECT COUNT(*) AS n FROM workflow_tasks WHERE agent_id = ? AND status = 'running'`),
      // `$[#-1]`: the last element of the JSON array (SQLite json1, 3.31+).
      accept: db.prepare(
        `UPDATE workflow_tasks SET status = 'succeeded', result = @result, error = NULL
         WHERE workflow_id = @workflowId AND idx = @index AND status = 'running' AND attempts = @attempt
           AND json_extract(turn_ids, '$[#-1]') = @turnId
           AND EXISTS (SELECT 1 FROM workflows w WHERE w.id = workflow_tasks.workflow_id AND w.status = 'running' AND w.cancel_requested_at IS NULL)`,
      ),
      start: db.prepare(`UPDATE workflow_tasks SET status = 'running', attempts = attempts + 1 WHERE workflow_id = ? AND idx = ? AND status = 'queued'`),
      finish: db.prepare(`UPDATE workflows SET status = ?, completed_at = ?, summary = ?, owner = NULL, lease_until = NULL WHERE id = ? AND status = 'running'`),
      claim: db.prepare(
        `UPDATE workflows SET owner = @owner, lease_until = @until
         WHERE id = @id AND status = 'running' AND (owner IS NULL OR owner = @owner OR lease_until IS NULL OR lease_until < @now)`,
      ),
      renew: db.prepare(`UPDATE workflows SET lease_until = ? WHERE id = ? AND owner = ? AND status = 'running' RETURNING cancel_requested_at IS NOT NULL AS cancel`),
      release: db.prepare('UPDATE workflows SET owner = NULL, lease_until = NULL WHERE id = ? AND owner = ?'),
      unowned: db.prepare(`SELECT id FROM workflows WHERE status = 'running' AND (owner IS NULL OR lease_until IS NULL OR lease_until < ?) ORDER BY id`),
      requestCancel: db.prepare(`UPDATE workflows SET cancel_requested_at = COALESCE(cancel_requested_at, ?) WHERE id = ? AND status = 'running'`),
      cancelRequested: db.prepare('SELECT cancel_requested_at IS NOT NULL AS c FROM workflows WHERE id = ?'),
      recoverOrphans: db.prepare(`UPDATE workflows SET owner = NULL, lease_until = NULL WHERE status = 'running' AND owner IS NOT NULL`),
      idsWithStatus: db.prepare('SELECT id FROM workflows WHERE status = ? ORDER BY id'),
    };
  }

  async insert(wf: WorkflowRecord, lease?: { owner: string; until: number }): Promise<WorkflowClaim | undefined> {
    this.db.transaction(() => {
      this.stmts.insertWorkflow.run({ ...wf, brain: wf.brain ? 1 : 0, owner: lease?.owner ?? null, lease_until: lease?.until ?? null });
      for (const t of wf.tasks) this.stmts.insertTask.run({ workflow_id: wf.id, agent_id: wf.agent_id, ...taskColumns(t) });
    })();
    return lease ? {} : undefined;
  }

  async get(id: string): Promise<WorkflowRecord | undefined> {
    const row = this.stmts.getWorkflow.get(id) as WorkflowRow | undefined;
    if (!row) return undefined;
    return toRecord(row, this.stmts.getTasks.all(id) as TaskRow[]);
  }

  async getTask(workflowId: string, index: number): Promise<WorkflowTask | undefined> {
    const row = this.stmts.getTask.get(workflowId, index) as TaskRow | undefined;
    return row ? toTask(row) : undefined;
  }

  async list(query: ListWorkflowsQuery = {}): Promise<{ workflows: WorkflowRecord[]; next_cursor: string | null }> {
    const where: string[] = [];
    const args: unknown[] = [];
    if (query.agent_id !== undefined) (where.push('agent_id = ?'), args.push(query.agent_id));
    if (query.status === 'live') where.push("status = 'running'");
    else if (query.status === 'done') where.push("status IN ('completed', 'failed', 'cancelled')");
    else if (query.status !== undefined) (where.push('status = ?'), args.push(query.status));
    if (query.cursor !== undefined) (where.push('id < ?'), args.push(query.cursor));
    const limit = workflowPageLimit(query.limit);
    const sql = `SELECT * FROM workflows ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
    const rows = this.db.prepare(sql).all(...args, limit + 1) as WorkflowRow[];
    const page = rows.slice(0, limit);
    return {
      workflows: page.map((r) => toRecord(r, this.stmts.getTasks.all(r.id) as TaskRow[])),
      next_cursor: rows.length > limit ? page[page.length - 1].id : null,
    };
  }

  async updateTask(workflowId: string, index: number, patch: TaskPatch): Promise<void> {
    const cols = patchColumns(patch);
    if (cols.length === 0) return;
    this.db
      .prepare(`UPDATE workflow_tasks SET ${cols.map(([c]) => `${c} = ?`).join(', ')} WHERE workflow_id = ? AND idx = ?`)
      .run(...cols.map(([, v]) => v), workflowId, index);
  }

  async acceptResult(workflowId: string, index: number, attempt: number, turnId: string, result: JsonValue): Promise<boolean> {
    return this.stmts.accept.run({ workflowId, index, attempt, turnId, result: JSON.stringify(result) }).changes === 1;
  }

  async startTask(workflowId: string, index: number, agentLimit: number): Promise<StartTaskOutcome> {
    return this.db
      .transaction((): StartTaskOutcome => {
        const task = this.stmts.getTask.get(workflowId, index) as (TaskRow & { agent_id: string }) | undefined;
        if (!task || task.status !== 'queued') return { kind: 'not_queued' };
        const running = (this.stmts.running.get(task.agent_id) as { n: number }).n;
        if (running >= agentLimit) return { kind: 'agent_limit', running };
        this.stmts.start.run(workflowId, index);
        return { kind: 'started', task: toTask(this.stmts.getTask.get(workflowId, index) as TaskRow) };
      })
      .immediate();
  }

  async runningTasks(agentId: string): Promise<number> {
    return (this.stmts.running.get(agentId) as { n: number }).n;
  }

  async finish(id: string, status: Exclude<WorkflowStatus, 'running'>, summary: string): Promise<boolean> {
    return this.stmts.finish.run(status, new Date().toISOString(), summary, id).changes === 1;
  }

  async claimWorkflow(id: string, owner: string, now: number, until: number): Promise<WorkflowClaim | undefined> {
    return this.stmts.claim.run({ id, owner, now, until }).changes === 1 ? {} : undefined;
  }

  async renewWorkflows(owner: string, ids: string[], until: number): Promise<{ id: string; cancelRequested: boolean }[]> {
    return this.db.transaction(() =>
      ids.flatMap((id) => {
        const row = this.stmts.renew.get(until, id, owner) as { cancel: number } | undefined;
        return row ? [{ id, cancelRequested: row.cancel === 1 }] : [];
      }),
    )();
  }

  async releaseWorkflow(id: string, owner: string): Promise<void> {
    this.stmts.release.run(id, owner);
  }

  async unownedWorkflows(now: number): Promise<string[]> {
    return (this.stmts.unowned.all(now) as { id: string }[]).map((r) => r.id);
  }

  async requestCancel(id: string, at: string): Promise<boolean> {
    return this.stmts.requestCancel.run(at, id).changes === 1;
  }

  async cancelRequested(id: string): Promise<boolean> {
    return (this.stmts.cancelRequested.get(id) as { c: number } | undefined)?.c === 1;
  }

  async recoverOrphans(): Promise<number> {
    // One process owns DATA_DIR: every lease still held belongs to a process that is gone.
    return this.stmts.recoverOrphans.run().changes;
  }

  async idsWithStatus(status: WorkflowStatus): Promise<string[]> {
    return (this.stmts.idsWithStatus.all(status) as { id: string }[]).map((r) => r.id);
  }
}
