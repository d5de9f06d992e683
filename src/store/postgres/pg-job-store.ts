/**
 * The job store on Postgres (table of migration 7, `pending_approvals` of migration 12, `skills` of migration 21). Multi-step operations run in one transaction;
 * `start` first takes a transaction-scoped advisory lock per agent
 * (`pg_advisory_xact_lock(hashtext('job-agent:' || agent_id))`), then counts and starts, so
 * BACKGROUND_JOBS_MAX_RUNNING_PER_AGENT holds across instances; rows read for an update are
 * locked with `FOR UPDATE`.
 */
import { sourcesOf } from '../../jobs/transitions.js';
import {
  JOB_COLUMNS,
  jobPageLimit,
  jobValues,
  toJob,
  transitionColumns,
  transitionSources,
  type InsertJobOutcome,
  type JobPatch,
  type JobRow,
  type JobStore,
  type StartJobOutcome,
  type TransitionOptions,
} from '../../jobs/job-store.js';
import { isTerminalJobStatus, type JobApproval, type JobPage, type JobRecord, type JobStatus, type ListJobsQuery } from '../../jobs/types.js';
import type { PgDatabase, PgQueryable } from './pg-database.js';

const INSERT = `INSERT INTO background_jobs (${JOB_COLUMNS.join(', ')}) VALUES (${JOB_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;

async function rowOf(q: PgQueryable, id: string, lock = false): Promise<JobRecord | undefined> {
  const { rows } = await q.query<JobRow>(`SELECT * FROM background_jobs WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ? toJob(rows[0]) : undefined;
}

async function runningOf(q: PgQueryable, agentId: string): Promise<number> {
  const { rows } = await q.query<{ n: string }>(`SELECT count(*) AS n FROM background_jobs WHERE agent_id = $1 AND status = 'running'`, [agentId]);
  return Number(rows[0].n);
}

export class PgJobStore implements JobStore {
  constructor(private readonly db: PgDatabase) {}

  async insert(job: JobRecord, opts: { respawnOf?: string } = {}): Promise<InsertJobOutcome> {
    return this.db.transaction(async (tx): Promise<InsertJobOutcome> => {
      if (job.source_turn_id !== null && job.source_call_id !== null) {
        // Serialize creations from one source call (two retries at once get one job).
        await tx.query(`SELECT pg_advisory_xact_lock(hashtext('job-source:' || $1 || ':' || $2))`, [job.source_turn_id, job.source_call_id]);
        const { rows } = await tx.query<JobRow>('SELECT * FROM background_jobs WHERE source_turn_id = $1 AND source_call_id = $2', [job.source_turn_id, job.source_call_id]);
        if (rows[0]) return { kind: 'exists', job: toJob(rows[0]) };
      }
      if (opts.respawnOf !== undefined) {
        const src = await rowOf(tx, opts.respawnOf, true);
        if (!src) return { kind: 'source_not_found' };
        if (!isTerminalJobStatus(src.status)) return { kind: 'source_not_terminal', status: src.status };
        if (src.respawned_to !== null) return { kind: 'already_respawned', by: src.respawned_to };
        await tx.query('UPDATE background_jobs SET respawned_to = $1, updated_at = $2 WHERE id = $3', [job.id, job.created_at, src.id]);
      }
      await tx.query(INSERT, jobValues(job, (b) => b));
      return { kind: 'created', job: (await rowOf(tx, job.id))! };
    });
  }

  get(id: string): Promise<JobRecord | undefined> {
    return rowOf(this.db, id);
  }

  async list(query: ListJobsQuery): Promise<JobPage> {
    const where: string[] = [];
    const args: unknown[] = [];
    if (query.agent_id !== undefined) (args.push(query.agent_id), where.push(`agent_id = $${args.length}`));
    if (query.statuses !== undefined) (args.push([...query.statuses]), where.push(`status = ANY($${args.length})`));
    if (query.cursor !== undefined) (args.push(query.cursor), where.push(`id < $${args.length}`));
    const limit = jobPageLimit(query.limit);
    args.push(limit + 1);
    const { rows } = await this.db.query<JobRow>(
      `SELECT * FROM background_jobs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${args.length}`,
      args,
    );
    const page = rows.slice(0, limit);
    return { jobs: page.map(toJob), next_cursor: rows.length > limit ? page[page.length - 1].id : null };
  }

  async transition(id: string, to: JobStatus, patch: JobPatch = {}, opts?: TransitionOptions): Promise<JobRecord | undefined> {
    const from = transitionSources(to, opts, sourcesOf(to));
    if (from.length === 0) return undefined;
    const cols = transitionColumns(to, patch, new Date().toISOString(), isTerminalJobStatus(to));
    const sets = cols.map(([c], i) => `${c} = $${i + 1}`).join(', ');
    const attempt = opts?.attempt === undefined ? '' : ` AND attempts = $${cols.length + 3}`;
    const { rows } = await this.db.query<JobRow>(
      `UPDATE background_jobs SET ${sets} WHERE id = $${cols.length + 1} AND status = ANY($${cols.length + 2})${attempt} RETURNING *`,
      [...cols.map(([, v]) => v), id, from, ...(opts?.attempt === undefined ? [] : [opts.attempt])],
    );
    return rows[0] ? toJob(rows[0]) : undefined;
  }

  async setPendingApprovals(id: string, from: JobApproval[], to: JobApproval[]): Promise<JobRecord | undefined> {
    const { rows } = await this.db.query<JobRow>(
      `UPDATE background_jobs SET pending_approvals = $1, updated_at = $2 WHERE id = $3 AND status = 'waiting_on_approval' AND pending_approvals = $4 RETURNING *`,
      [JSON.stringify(to), new Date().toISOString(), id, JSON.stringify(from)],
    );
    return rows[0] ? toJob(rows[0]) : undefined;
  }

  async start(id: string, from: 'queued' | 'waiting_on_user', limit: number): Promise<StartJobOutcome> {
    return this.db.transaction(async (tx): Promise<StartJobOutcome> => {
      const peek = await rowOf(tx, id);
      if (!peek || peek.status !== from) return { kind: 'not_startable' };
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('job-agent:' || $1))`, [peek.agent_id]);
      const job = await rowOf(tx, id, true);
      if (!job || job.status !== from) return { kind: 'not_startable' };
      const running = await runningOf(tx, job.agent_id);
      if (running >= limit) return { kind: 'agent_limit', running };
      const now = new Date().toISOString();
      const { rows } = await tx.query<JobRow>(
        `UPDATE background_jobs SET status = 'running', attempts = attempts + 1, started_at = COALESCE(started_at, $1), updated_at = $1,
         question = NULL WHERE id = $2 RETURNING *`,
        [now, id],
      );
      return { kind: 'started', job: toJob(rows[0]) };
    });
  }

  async addTurn(id: string, attempt: number, turnId: string): Promise<{ job: JobRecord; added: boolean } | undefined> {
    return this.db.transaction(async (tx) => {
      const job = await rowOf(tx, id, true);
      if (!job) return undefined;
      if (job.turn_ids.length !== attempt - 1) return { job, added: false };
      await tx.query(`UPDATE background_jobs SET turn_ids = $1, pending_messages = '[]', updated_at = $2 WHERE id = $3`, [JSON.stringify([...job.turn_ids, turnId]), new Date().toISOString(), id]);
      return { job: (await rowOf(tx, id))!, added: true };
    });
  }

  async addPending(id: string, message: string, statuses: readonly JobStatus[]): Promise<JobRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const job = await rowOf(tx, id, true);
      if (!job || !statuses.includes(job.status)) return undefined;
      await tx.query('UPDATE background_jobs SET pending_messages = $1, updated_at = $2 WHERE id = $3', [
        JSON.stringify([...job.pending_messages, message]),
        new Date().toISOString(),
        id,
      ]);
      return rowOf(tx, id);
    });
  }

  async clearNotice(id: string, notice: string): Promise<void> {
    await this.db.query('UPDATE background_jobs SET notice = NULL WHERE id = $1 AND notice = $2', [id, notice]);
  }

  async idsWithNotice(): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>('SELECT id FROM background_jobs WHERE notice IS NOT NULL ORDER BY id');
    return rows.map((r) => r.id);
  }

  async idsWithStatus(statuses: readonly JobStatus[]): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>('SELECT id FROM background_jobs WHERE status = ANY($1) ORDER BY id', [[...statuses]]);
    return rows.map((r) => r.id);
  }

  runningCount(agentId: string): Promise<number> {
    return runningOf(this.db, agentId);
  }
}
