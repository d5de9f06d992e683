/**
 * SQLite implementation of {@link JobStore} (table `background_jobs`, created here). Multi-step
 * operations run in IMMEDIATE transactions, so the per-agent running count and the start are one
 * atomic step.
 */
import type { Database } from '../store/database.js';
import { sourcesOf } from './transitions.js';
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
} from './job-store.js';
import { isTerminalJobStatus, type JobApproval, type JobPage, type JobRecord, type JobStatus, type ListJobsQuery } from './types.js';

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

export class SqliteJobStore implements JobStore {
  constructor(private readonly db: Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS background_jobs (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      title TEXT NOT NULL,
      task TEXT NOT NULL,
      status TEXT NOT NULL,
      model TEXT,
      source_turn_id TEXT,
      source_call_id TEXT,
      respawned_from TEXT,
      respawned_to TEXT,
      notify INTEGER NOT NULL DEFAULT 1,
      turn_ids TEXT NOT NULL DEFAULT '[]',
      pending_messages TEXT NOT NULL DEFAULT '[]',
      pending_approvals TEXT NOT NULL DEFAULT '[]',
      question TEXT,
      notice TEXT,
      output_text TEXT,
      error TEXT,
      attempts INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      started_at TEXT,
      finished_at TEXT,
      updated_at TEXT NOT NULL,
      skills TEXT
    );
    CREATE UNIQUE INDEX IF NOT EXISTS background_jobs_source ON background_jobs (source_turn_id, source_call_id);
    CREATE INDEX IF NOT EXISTS background_jobs_agent ON background_jobs (agent_id, id);
    CREATE INDEX IF NOT EXISTS background_jobs_status ON background_jobs (status, id);`);
    // A DATA_DIR from before pending approvals were stored gets the column (same default).
    const cols = db.prepare('PRAGMA table_info(background_jobs)').all() as { name: string }[];
    if (!cols.some((c) => c.name === 'pending_approvals')) db.exec(`ALTER TABLE background_jobs ADD COLUMN pending_approvals TEXT NOT NULL DEFAULT '[]'`);
    // …and one from before the skills of a job were recorded at its creation (null: read at each start).
    if (!cols.some((c) => c.name === 'skills')) db.exec('ALTER TABLE background_jobs ADD COLUMN skills TEXT');
  }

  private row(id: string): JobRecord | undefined {
    const r = this.db.prepare('SELECT * FROM background_jobs WHERE id = ?').get(id) as JobRow | undefined;
    return r ? toJob(r) : undefined;
  }

  async insert(job: JobRecord, opts: { respawnOf?: string } = {}): Promise<InsertJobOutcome> {
    return this.db
      .transaction((): InsertJobOutcome => {
        if (job.source_turn_id !== null && job.source_call_id !== null) {
          const r = this.db
            .prepare('SELECT * FROM background_jobs WHERE source_turn_id = ? AND source_call_id = ?')
            .get(job.source_turn_id, job.source_call_id) as JobRow | undefined;
          if (r) return { kind: 'exists', job: toJob(r) };
        }
        if (opts.respawnOf !== undefined) {
          const src = this.row(opts.respawnOf);
          if (!src) return { kind: 'source_not_found' };
          if (!isTerminalJobStatus(src.status)) return { kind: 'source_not_terminal', status: src.status };
          if (src.respawned_to !== null) return { kind: 'already_respawned', by: src.respawned_to };
          this.db.prepare('UPDATE background_jobs SET respawned_to = ?, updated_at = ? WHERE id = ?').run(job.id, job.created_at, src.id);
        }
        this.db.prepare(`INSERT INTO background_jobs (${JOB_COLUMNS.join(', ')}) VALUES (${marks(JOB_COLUMNS.length)})`).run(...jobValues(job, (b) => (b ? 1 : 0)));
        return { kind: 'created', job: this.row(job.id)! };
      })
      .immediate();
  }

  async get(id: string): Promise<JobRecord | undefined> {
    return this.row(id);
  }

  async list(query: ListJobsQuery): Promise<JobPage> {
    const where: string[] = [];
    const args: unknown[] = [];
    if (query.agent_id !== undefined) (where.push('agent_id = ?'), args.push(query.agent_id));
    if (query.statuses !== undefined) (where.push(`status IN (${marks(query.statuses.length)})`), args.push(...query.statuses));
    if (query.cursor !== undefined) (where.push('id < ?'), args.push(query.cursor));
    const limit = jobPageLimit(query.limit);
    const sql = `SELECT * FROM background_jobs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
    const rows = this.db.prepare(sql).all(...args, limit + 1) as JobRow[];
    const page = rows.slice(0, limit);
    return { jobs: page.map(toJob), next_cursor: rows.length > limit ? page[page.length - 1].id : null };
  }

  async transition(id: string, to: JobStatus, patch: JobPatch = {}, opts?: TransitionOptions): Promise<JobRecord | undefined> {
    const from = transitionSources(to, opts, sourcesOf(to));
    if (from.length === 0) return undefined;
    const cols = transitionColumns(to, patch, new Date().toISOString(), isTerminalJobStatus(to));
    const r = this.db
      .prepare(`UPDATE background_jobs SET ${cols.map(([c]) => `${c} = ?`).join(', ')} WHERE id = ? AND status IN (${marks(from.length)})${opts?.attempt === undefined ? '' : ' AND attempts = ?'}`)
      .run(...cols.map(([, v]) => v), id, ...from, ...(opts?.attempt === undefined ? [] : [opts.attempt]));
    return r.changes > 0 ? this.row(id) : undefined;
  }

  async setPendingApprovals(id: string, from: JobApproval[], to: JobApproval[]): Promise<JobRecord | undefined> {
    const r = this.db
      .prepare(`UPDATE background_jobs SET pending_approvals = ?, updated_at = ? WHERE id = ? AND status = 'waiting_on_approval' AND pending_approvals = ?`)
      .run(JSON.stringify(to), new Date().toISOString(), id, JSON.stringify(from));
    return r.changes > 0 ? this.row(id) : undefined;
  }

  async start(id: string, from: 'queued' | 'waiting_on_user', limit: number): Promise<StartJobOutcome> {
    return this.db
      .transaction((): StartJobOutcome => {
        const job = this.row(id);
        if (!job || job.status !== from) return { kind: 'not_startable' };
        const running = this.countRunning(job.agent_id);
        if (running >= limit) return { kind: 'agent_limit', running };
        const now = new Date().toISOString();
        this.db
          .prepare(
            `UPDATE background_jobs SET status = 'running', attempts = attempts + 1, started_at = COALESCE(started_at, ?), updated_at = ?,
             question = NULL WHERE id = ?`,
          )
          .run(now, now, id);
        return { kind: 'started', job: this.row(id)! };
      })
      .immediate();
  }

  async addTurn(id: string, attempt: number, turnId: string): Promise<{ job: JobRecord; added: boolean } | undefined> {
    return this.db
      .transaction(() => {
        const job = this.row(id);
        if (!job) return undefined;
        if (job.turn_ids.length !== attempt - 1) return { job, added: false };
        this.db.prepare(`UPDATE background_jobs SET turn_ids = ?, pending_messages = '[]', updated_at = ? WHERE id = ?`).run(JSON.stringify([...job.turn_ids, turnId]), new Date().toISOString(), id);
        return { job: this.row(id)!, added: true };
      })
      .immediate();
  }

  async addPending(id: string, message: string, statuses: readonly JobStatus[]): Promise<JobRecord | undefined> {
    return this.db
      .transaction(() => {
        const job = this.row(id);
        if (!job || !statuses.includes(job.status)) return undefined;
        this.db
          .prepare('UPDATE background_jobs SET pending_messages = ?, updated_at = ? WHERE id = ?')
          .run(JSON.stringify([...job.pending_messages, message]), new Date().toISOString(), id);
        return this.row(id);
      })
      .immediate();
  }

  async clearNotice(id: string, notice: string): Promise<void> {
    this.db.prepare('UPDATE background_jobs SET notice = NULL WHERE id = ? AND notice = ?').run(id, notice);
  }

  async idsWithNotice(): Promise<string[]> {
    return (this.db.prepare('SELECT id FROM background_jobs WHERE notice IS NOT NULL ORDER BY id').all() as { id: string }[]).map((r) => r.id);
  }

  async idsWithStatus(statuses: readonly JobStatus[]): Promise<string[]> {
    if (statuses.length === 0) return [];
    const rows = this.db.prepare(`SELECT id FROM background_jobs WHERE status IN (${marks(statuses.length)}) ORDER BY id`).all(...statuses) as { id: string }[];
    return rows.map((r) => r.id);
  }

  async runningCount(agentId: string): Promise<number> {
    return this.countRunning(agentId);
  }

  private countRunning(agentId: string): number {
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM background_jobs WHERE agent_id = ? AND status = 'running'`).get(agentId) as { n: number }).n;
  }
}
