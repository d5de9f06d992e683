/**
 * The schedule store on SQLite (tables `schedules`, `schedule_runs`, created on the shared
 * better-sqlite3 handle of src/store/database.ts). Every read-modify-write of the port runs in one
 * `BEGIN IMMEDIATE` transaction (the write lock is taken up front), so it never races the
 * scheduler's claim, even from another process on the same database file.
 */
import type { Database } from '../store/database.js';
import type { ScheduleStatus } from './types.js';
import {
  claimedRun,
  cloneSchedule,
  toStored,
  toStoredRun,
  type ClaimPlan,
  type CreateOutcome,
  type RunRow,
  type ScheduleRow,
  type ScheduleStore,
  type StoredRun,
  type StoredSchedule,
} from './store.js';

export class SqliteScheduleStore implements ScheduleStore {
  constructor(private readonly db: Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS schedules (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      name TEXT NOT NULL,
      status TEXT NOT NULL,
      when_json TEXT NOT NULL,
      request_json TEXT NOT NULL,
      next_run_at INTEGER,
      last_run_at INTEGER,
      run_count INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      created_by TEXT NOT NULL,
      idempotency_key TEXT UNIQUE,
      request_hash TEXT
    );
    CREATE INDEX IF NOT EXISTS schedules_due ON schedules (status, next_run_at);
    CREATE INDEX IF NOT EXISTS schedules_agent ON schedules (agent_id, id);
    CREATE TABLE IF NOT EXISTS schedule_runs (
      id TEXT PRIMARY KEY,
      schedule_id TEXT NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
      agent_id TEXT NOT NULL,
      slot_at INTEGER NOT NULL,
      status TEXT NOT NULL,
      claimed_at INTEGER NOT NULL,
      claimed_by TEXT NOT NULL,
      started_at INTEGER,
      turn_id TEXT,
      missed_slots INTEGER NOT NULL DEFAULT 0,
      error_json TEXT,
      request_json TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS schedule_runs_by_schedule ON schedule_runs (schedule_id, id);
    CREATE INDEX IF NOT EXISTS schedule_runs_claimed ON schedule_runs (status);`);
  }

  /** Run `fn` in one SQLite transaction (BEGIN IMMEDIATE: the write lock is taken up front). */
  private transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  async create(s: StoredSchedule, maxLive: number): Promise<CreateOutcome> {
    return this.transaction((): CreateOutcome => {
      if (s.idempotency_key !== null) {
        const existing = this.getSync('idempotency_key', s.idempotency_key);
        if (existing) return { kind: 'exists', existing };
      }
      const live = this.countLiveSync(s.agent_id);
      if (live >= maxLive) return { kind: 'limit', live };
      this.insert(s);
      return { kind: 'created' };
    });
  }

  private insert(s: StoredSchedule): void {
    this.db
      .prepare(
        `INSERT INTO schedules (id, agent_id, name, status, when_json, request_json, next_run_at, last_run_at,
           run_count, created_at, updated_at, created_by, idempotency_key, request_hash)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        s.id, s.agent_id, s.name, s.status, JSON.stringify(s.when), JSON.stringify(s.request), s.next_run_at, s.last_run_at,
        s.run_count, s.created_at, s.updated_at, JSON.stringify(s.created_by), s.idempotency_key, s.request_hash,
      );
  }

  async modify(id: string, change: (current: StoredSchedule, liveCount: number) => StoredSchedule): Promise<StoredSchedule | undefined> {
    return this.transaction(() => {
      const current = this.getSync('id', id);
      if (!current) return undefined;
      const s = change(cloneSchedule(current), this.countLiveSync(current.agent_id));
      this.db
        .prepare(`UPDATE schedules SET name = ?, status = ?, when_json = ?, request_json = ?, next_run_at = ?, updated_at = ? WHERE id = ?`)
        .run(s.name, s.status, JSON.stringify(s.when), JSON.stringify(s.request), s.next_run_at, s.updated_at, id);
      return s;
    });
  }

  async remove(id: string): Promise<StoredSchedule | undefined> {
    return this.transaction(() => {
      const s = this.getSync('id', id);
      if (!s) return undefined;
      this.db.prepare(`DELETE FROM schedule_runs WHERE schedule_id = ?`).run(id);
      this.db.prepare(`DELETE FROM schedules WHERE id = ?`).run(id);
      return s;
    });
  }

  async get(id: string): Promise<StoredSchedule | undefined> {
    return this.getSync('id', id);
  }

  async getByIdempotencyKey(key: string): Promise<StoredSchedule | undefined> {
    return this.getSync('idempotency_key', key);
  }

  /** The schedule whose unique column `column` equals `value`. */
  private getSync(column: 'id' | 'idempotency_key', value: string): StoredSchedule | undefined {
    const row = this.db.prepare(`SELECT * FROM schedules WHERE ${column} = ?`).get(value) as ScheduleRow | undefined;
    return row ? toStored(row) : undefined;
  }

  async countLive(agentId: string): Promise<number> {
    return this.countLiveSync(agentId);
  }

  private countLiveSync(agentId: string): number {
    const row = this.db
      .prepare(`SELECT COUNT(*) AS n FROM schedules WHERE agent_id = ? AND status IN ('active', 'paused')`)
      .get(agentId) as { n: number };
    return row.n;
  }

  async list(q: { agent_id?: string; status?: ScheduleStatus; before?: string; limit: number }): Promise<StoredSchedule[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    if (q.agent_id !== undefined) (where.push('agent_id = ?'), args.push(q.agent_id));
    if (q.status !== undefined) (where.push('status = ?'), args.push(q.status));
    if (q.before !== undefined) (where.push('id < ?'), args.push(q.before));
    const sql = `SELECT * FROM schedules ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
    return (this.db.prepare(sql).all(...args, q.limit) as ScheduleRow[]).map(toStored);
  }

  async due(now: number, limit = 100): Promise<StoredSchedule[]> {
    return (
      this.db
        .prepare(`SELECT * FROM schedules WHERE status = 'active' AND next_run_at <= ? ORDER BY next_run_at LIMIT ?`)
        .all(now, limit) as ScheduleRow[]
    ).map(toStored);
  }

  async claim(s: StoredSchedule, plan: ClaimPlan, now: number, instanceId: string): Promise<StoredRun | undefined> {
    return this.transaction(() => {
      const changed = this.db
        .prepare(
          `UPDATE schedules SET next_run_at = ?, status = ?, last_run_at = ?, run_count = run_count + 1
           WHERE id = ? AND status = 'active' AND next_run_at = ?`,
        )
        .run(plan.nextRunAt, plan.status, s.next_run_at, s.id, s.next_run_at).changes;
      if (changed !== 1) return undefined;
      const run = claimedRun(s, plan, now, instanceId, this.getSync('id', s.id)!.request);
      this.db
        .prepare(
          `INSERT INTO schedule_runs (id, schedule_id, agent_id, slot_at, status, claimed_at, claimed_by, missed_slots, request_json)
           VALUES (?, ?, ?, ?, 'claimed', ?, ?, ?, ?)`,
        )
        .run(run.id, run.schedule_id, run.agent_id, run.slot_at, run.claimed_at, run.claimed_by, run.missed_slots, JSON.stringify(run.request));
      return run;
    });
  }

  async claimedRuns(): Promise<StoredRun[]> {
    return (this.db.prepare(`SELECT * FROM schedule_runs WHERE status = 'claimed' ORDER BY claimed_at, id`).all() as RunRow[]).map(toStoredRun);
  }

  async reclaim(runId: string, previousOwner: string, now: number, instanceId: string): Promise<boolean> {
    return (
      this.db
        .prepare(`UPDATE schedule_runs SET claimed_by = ?, claimed_at = ? WHERE id = ? AND status = 'claimed' AND claimed_by = ?`)
        .run(instanceId, now, runId, previousOwner).changes === 1
    );
  }

  async markStarted(runId: string, turnId: string, now: number): Promise<void> {
    this.db
      .prepare(`UPDATE schedule_runs SET status = 'started', turn_id = ?, started_at = ? WHERE id = ? AND status = 'claimed'`)
      .run(turnId, now, runId);
  }

  async markFailed(runId: string, error: { code: string; message: string }): Promise<void> {
    this.db
      .prepare(`UPDATE schedule_runs SET status = 'failed', error_json = ? WHERE id = ? AND status = 'claimed'`)
      .run(JSON.stringify(error), runId);
  }

  async getRun(id: string): Promise<StoredRun | undefined> {
    const row = this.db.prepare(`SELECT * FROM schedule_runs WHERE id = ?`).get(id) as RunRow | undefined;
    return row ? toStoredRun(row) : undefined;
  }

  async listRuns(scheduleId: string, q: { before?: string; limit: number }): Promise<StoredRun[]> {
    const cursor = q.before === undefined ? '' : 'AND id < ?';
    const args = q.before === undefined ? [scheduleId] : [scheduleId, q.before];
    const rows = this.db.prepare(`SELECT * FROM schedule_runs WHERE schedule_id = ? ${cursor} ORDER BY id DESC LIMIT ?`).all(...args, q.limit);
    return (rows as RunRow[]).map(toStoredRun);
  }
}
