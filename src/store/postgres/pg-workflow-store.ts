/**
 * The workflow store on Postgres (tables of migration 2). `startTask` takes a transaction-scoped
 * advisory lock per agent (`pg_advisory_xact_lock(hashtext('workflow-agent:' || agent_id))`), then
 * counts the agent's running tasks and updates the task only while it is still `queued`: the
 * per-agent running limit holds across instances. Leases (migration 9: `owner`, `lease_until`,
 * `cancel_requested_at`) say which instance drives a running workflow; claims and renewals are
 * conditional UPDATEs, so one instance at a time holds a workflow.
 *
 * Fencing (migration 20, src/store/lease-fence.ts `WorkflowFence`): a leased insert sets the claim
 * epoch `lease_epoch` to 1 and a claim that hands the workflow to another driver raises it (its
 * owner taking its own lease back keeps it). A driver's write made with its fence checks and locks
 * the workflow's row (`FOR SHARE`, {@link holdWorkflowLease}) in the write's transaction — a claim
 * waits for that commit, or the write, reaching the server after the claim, sees the new driver —
 * and `finish` checks owner and epoch in its UPDATE; a refusal rejects with `lease_lost` and marks
 * the fence lost, after which the driver's writes are refused without a statement. So what a
 * driver whose connection hung past its lease sends late (a task requeued or failed, the workflow
 * finished) does not land over what the new driver did meanwhile.
 */
import type { JsonValue } from '../../runtime/json.js';
import type { ListWorkflowsQuery, WorkflowRecord, WorkflowStatus, WorkflowTask } from '../../workflows/types.js';
import {
  patchColumns,
  taskColumns,
  toRecord,
  toTask,
  workflowPageLimit,
  type StartTaskOutcome,
  type TaskPatch,
  type TaskRow,
  type WorkflowClaim,
  type WorkflowRow,
  type WorkflowStore,
} from '../../workflows/workflow-store.js';
import { workflowLeaseLost, type WorkflowFence } from '../lease-fence.js';
import type { PgDatabase, PgQueryable } from './pg-database.js';

/**
 * In transaction `tx`: lock workflow `fence.workflowId`'s row (`FOR SHARE`, until the commit)
 * while it shows the fence's owner and claim epoch; else mark the fence lost and reject with
 * `WorkflowLeaseLostError` (also at once, without a statement, when it is already lost).
 */
export async function holdWorkflowLease(tx: PgQueryable, fence: WorkflowFence): Promise<void> {
  if (fence.lost) throw workflowLeaseLost(fence);
  const { rows } = await tx.query('SELECT 1 FROM workflows WHERE id = $1 AND owner = $2 AND lease_epoch = $3 FOR SHARE', [fence.workflowId, fence.owner, fence.epoch]);
  if (rows.length === 0) throw workflowLeaseLost(fence);
}

async function tasksOf(q: PgQueryable, ids: string[]): Promise<Map<string, TaskRow[]>> {
  const byWorkflow = new Map<string, TaskRow[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return byWorkflow;
  const { rows } = await q.query<TaskRow>('SELECT * FROM workflow_tasks WHERE workflow_id = ANY($1) ORDER BY workflow_id, idx', [ids]);
  for (const r of rows) byWorkflow.get(r.workflow_id)!.push(r);
  return byWorkflow;
}

const TASK_INSERT = `INSERT INTO workflow_tasks (workflow_id, idx, agent_id, label, prompt, result_schema, status, attempts, result, error, turn_ids)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;

export class PgWorkflowStore implements WorkflowStore {
  constructor(private readonly db: PgDatabase) {}

  async insert(wf: WorkflowRecord, lease?: { owner: string; until: number }): Promise<WorkflowClaim | undefined> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO workflows (id, agent_id, title, status, concurrency, brain, model, created_at, completed_at, summary, owner, lease_until, lease_epoch)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        [wf.id, wf.agent_id, wf.title, wf.status, wf.concurrency, wf.brain, wf.model, wf.created_at, wf.completed_at, wf.summary, lease?.owner ?? null, lease?.until ?? null, lease ? 1 : 0],
      );
      for (const t of wf.tasks) {
        const c = taskColumns(t);
        await tx.query(TASK_INSERT, [wf.id, c.idx, wf.agent_id, c.label, c.prompt, c.result_schema, c.status, c.attempts, c.result, c.error, c.turn_ids]);
      }
    });
    return lease ? { epoch: 1 } : undefined;
  }

  async get(id: string): Promise<WorkflowRecord | undefined> {
    const { rows } = await this.db.query<WorkflowRow>('SELECT * FROM workflows WHERE id = $1', [id]);
    if (!rows[0]) return undefined;
    return toRecord(rows[0], (await tasksOf(this.db, [id])).get(id)!);
  }

  async getTask(workflowId: string, index: number): Promise<WorkflowTask | undefined> {
    const { rows } = await this.db.query<TaskRow>('SELECT * FROM workflow_tasks WHERE workflow_id = $1 AND idx = $2', [workflowId, index]);
    return rows[0] ? toTask(rows[0]) : undefined;
  }

  async list(query: ListWorkflowsQuery = {}): Promise<{ workflows: WorkflowRecord[]; next_cursor: string | null }> {
    const where: string[] = [];
    const args: unknown[] = [];
    const add = (sql: string, v: unknown) => (args.push(v), where.push(sql.replace('?', `$${args.length}`)));
    if (query.agent_id !== undefined) add('agent_id = ?', query.agent_id);
    if (query.status === 'live') where.push("status = 'running'");
    else if (query.status === 'done') where.push("status IN ('completed', 'failed', 'cancelled')");
    else if (query.status !== undefined) add('status = ?', query.status);
    if (query.cursor !== undefined) add('id < ?', query.cursor);
    const limit = workflowPageLimit(query.limit);
    args.push(limit + 1);
    const sql = `SELECT * FROM workflows ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${args.length}`;
    const { rows } = await this.db.query<WorkflowRow>(sql, args);
    const page = rows.slice(0, limit);
    const tasks = await tasksOf(this.db, page.map((r) => r.id));
    return {
      workflows: page.map((r) => toRecord(r, tasks.get(r.id)!)),
      next_cursor: rows.length > limit ? page[page.length - 1].id : null,
    };
  }

  async updateTask(workflowId: string, index: number, patch: TaskPatch, fence?: WorkflowFence): Promise<void> {
    const cols = patchColumns(patch);
    if (cols.length === 0) return;
    const sets = cols.map(([c], i) => `${c} = $${i + 1}`).join(', ');
    const update = (q: PgQueryable) =>
      q.query(`UPDATE workflow_tasks SET ${sets} WHERE workflow_id = $${cols.length + 1} AND idx = $${cols.length + 2}`, [...cols.map(([, v]) => v), workflowId, index]);
    if (!fence) return void (await update(this.db));
    await this.db.transaction(async (tx) => {
      await holdWorkflowLease(tx, fence);
      await update(tx);
    });
  }

  async acceptResult(workflowId: string, index: number, attempt: number, turnId: string, result: JsonValue): Promise<boolean> {
    // One UPDATE: under READ COMMITTED a concurrent write of the row (the driver requeueing or
    // failing the task, recording another turn) is waited for and the conditions are checked
    // again on what it wrote. `->> -1`: the array's last element.
    const r = await this.db.query(
      `UPDATE workflow_tasks SET status = 'succeeded', result = $5, error = NULL
       WHERE workflow_id = $1 AND idx = $2 AND status = 'running' AND attempts = $3
         AND (turn_ids::jsonb ->> -1) = $4
         AND EXISTS (SELECT 1 FROM workflows w WHERE w.id = workflow_tasks.workflow_id AND w.status = 'running' AND w.cancel_requested_at IS NULL)`,
      [workflowId, index, attempt, turnId, JSON.stringify(result)],
    );
    return r.rowCount === 1;
  }

  async startTask(workflowId: string, index: number, agentLimit: number, fence?: WorkflowFence): Promise<StartTaskOutcome> {
    return this.db.transaction(async (tx): Promise<StartTaskOutcome> => {
      if (fence) await holdWorkflowLease(tx, fence);
      const { rows: found } = await tx.query<{ agent_id: string; status: string }>(
        'SELECT agent_id, status FROM workflow_tasks WHERE workflow_id = $1 AND idx = $2',
        [workflowId, index],
      );
      if (!found[0] || found[0].status !== 'queued') return { kind: 'not_queued' };
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('workflow-agent:' || $1))`, [found[0].agent_id]);
      const running = await runningOf(tx, found[0].agent_id);
      if (running >= agentLimit) return { kind: 'agent_limit', running };
      const { rows } = await tx.query<TaskRow>(
        `UPDATE workflow_tasks SET status = 'running', attempts = attempts + 1
         WHERE workflow_id = $1 AND idx = $2 AND status = 'queued' RETURNING *`,
        [workflowId, index],
      );
      return rows[0] ? { kind: 'started', task: toTask(rows[0]) } : { kind: 'not_queued' };
    });
  }

  runningTasks(agentId: string): Promise<number> {
    return runningOf(this.db, agentId);
  }

  async finish(id: string, status: Exclude<WorkflowStatus, 'running'>, summary: string, fence?: WorkflowFence): Promise<boolean> {
    if (fence?.lost) throw workflowLeaseLost(fence);
    const r = await this.db.query(
      `UPDATE workflows SET status = $1, completed_at = $2, summary = $3, owner = NULL, lease_until = NULL
       WHERE id = $4 AND status = 'running'${fence ? ' AND owner = $5 AND lease_epoch = $6' : ''}`,
      [status, new Date().toISOString(), summary, id, ...(fence ? [fence.owner, fence.epoch] : [])],
    );
    if (r.rowCount === 1 || !fence) return r.rowCount === 1;
    // Not changed: finished already (false), or no longer this driver's (refused).
    const { rows } = await this.db.query<{ status: string }>('SELECT status FROM workflows WHERE id = $1', [id]);
    if (rows[0]?.status === 'running') throw workflowLeaseLost(fence);
    return false;
  }

  async claimWorkflow(id: string, owner: string, now: number, until: number): Promise<WorkflowClaim | undefined> {
    // The epoch stays only when `owner` takes its own lease back (its driver may still be going on);
    // any other claim fences every earlier driver's writes off.
    const { rows } = await this.db.query<{ lease_epoch: string }>(
      `UPDATE workflows SET owner = $2, lease_until = $4, lease_epoch = CASE WHEN owner = $2 THEN lease_epoch ELSE lease_epoch + 1 END
       WHERE id = $1 AND status = 'running' AND (owner IS NULL OR owner = $2 OR lease_until IS NULL OR lease_until < $3)
       RETURNING lease_epoch`,
      [id, owner, now, until],
    );
    return rows[0] ? { epoch: Number(rows[0].lease_epoch) } : undefined;
  }

  async renewWorkflows(owner: string, ids: string[], until: number): Promise<{ id: string; cancelRequested: boolean }[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.db.query<{ id: string; cancel: boolean }>(
      `UPDATE workflows SET lease_until = $3 WHERE id = ANY($2) AND owner = $1 AND status = 'running'
       RETURNING id, cancel_requested_at IS NOT NULL AS cancel`,
      [owner, ids, until],
    );
    return rows.map((r) => ({ id: r.id, cancelRequested: r.cancel }));
  }

  async releaseWorkflow(id: string, owner: string): Promise<void> {
    await this.db.query('UPDATE workflows SET owner = NULL, lease_until = NULL WHERE id = $1 AND owner = $2', [id, owner]);
  }

  async unownedWorkflows(now: number): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `SELECT id FROM workflows WHERE status = 'running' AND (owner IS NULL OR lease_until IS NULL OR lease_until < $1) ORDER BY id`,
      [now],
    );
    return rows.map((r) => r.id);
  }

  async requestCancel(id: string, at: string): Promise<boolean> {
    const r = await this.db.query(`UPDATE workflows SET cancel_requested_at = COALESCE(cancel_requested_at, $2) WHERE id = $1 AND status = 'running'`, [id, at]);
    return r.rowCount === 1;
  }

  async cancelRequested(id: string): Promise<boolean> {
    const { rows } = await this.db.query<{ c: boolean }>('SELECT cancel_requested_at IS NOT NULL AS c FROM workflows WHERE id = $1', [id]);
    return rows[0]?.c ?? false;
  }

  async recoverOrphans(): Promise<number> {
    // Shared by several instances: a lease still held may belong to a live instance; leases of
    // dead instances run out by themselves and their workflows are taken up then.
    return 0;
  }

  async idsWithStatus(status: WorkflowStatus): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>('SELECT id FROM workflows WHERE status = $1 ORDER BY id', [status]);
    return rows.map((r) => r.id);
  }
}

async function runningOf(q: PgQueryable, agentId: string): Promise<number> {
  const { rows } = await q.query<{ n: number }>(`SELECT count(*) AS n FROM workflow_tasks WHERE agent_id = $1 AND status = 'running'`, [agentId]);
  return rows[0].n;
}
