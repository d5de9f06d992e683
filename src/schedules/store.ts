/**
 * SQLite persistence for schedules (tables `schedules`, `schedule_runs`) on the shared
 * better-sqlite3 handle (src/store/database.ts). Times are stored as integer ms since the epoch.
 *
 * Exactly-once firing: {@link SqliteScheduleStore.claimDue} advances a due schedule with
 * `UPDATE … WHERE id = ? AND status = 'active' AND next_run_at = ?` and records the run as `claimed`
 * (with its slot and a snapshot of the turn request) in the same transaction. Only the instance
 * whose UPDATE changed the row owns the run, so several instances sharing the database fire each
 * slot once; a run left `claimed` by a crash is found again by {@link SqliteScheduleStore.claimedRuns}.
 */
import type { Database } from '../store/database.js';
import type {
  Schedule,
  ScheduleCreator,
  ScheduleRequest,
  ScheduleRun,
  ScheduleRunStatus,
  ScheduleStatus,
  ScheduleWhen,
} from './types.js';

/** A schedule as stored (times in ms). */
export interface StoredSchedule {
  id: string;
  agent_id: string;
  name: string;
  status: ScheduleStatus;
  when: ScheduleWhen;
  request: ScheduleRequest;
  next_run_at: number | null;
  last_run_at: number | null;
  run_count: number;
  created_at: number;
  updated_at: number;
  created_by: ScheduleCreator;
  idempotency_key: string | null;
  request_hash: string | null;
}

/** A run as stored, with the turn request snapshot taken when it was claimed. */
export interface StoredRun {
  id: string;
  schedule_id: string;
  agent_id: string;
  slot_at: number;
  status: ScheduleRunStatus;
  claimed_at: number;
  claimed_by: string;
  started_at: number | null;
  turn_id: string | null;
  missed_slots: number;
  error: { code: string; message: string } | null;
  request: ScheduleRequest;
}

/** What the scheduler decides for one due schedule when it claims it. */
export interface ClaimPlan {
  runId: string;
  /** New `next_run_at` (null for a fired one-shot). */
  nextRunAt: number | null;
  /** New status (`completed` for a fired one-shot). */
  status: ScheduleStatus;
  missedSlots: number;
}

/** A `schedules` row (`SELECT *`): the stored schedule's plain fields, JSON columns as text. */
type ScheduleRow = Omit<StoredSchedule, 'when' | 'request' | 'created_by'> & {
  when_json: string;
  request_json: string;
  created_by: string;
};

/** A `schedule_runs` row (`SELECT *`): the stored run's plain fields, JSON columns as text. */
type RunRow = Omit<StoredRun, 'error' | 'request'> & { error_json: string | null; request_json: string };

function toStored(row: ScheduleRow): StoredSchedule {
  const { when_json, request_json, created_by, ...plain } = row;
  return {
    ...plain,
    when: JSON.parse(when_json) as ScheduleWhen,
    request: JSON.parse(request_json) as ScheduleRequest,
    created_by: JSON.parse(created_by) as ScheduleCreator,
  };
}

function toStoredRun(row: RunRow): StoredRun {
  const { error_json, request_json, ...plain } = row;
  return {
    ...plain,
    error: error_json === null ? null : (JSON.parse(error_json) as StoredRun['error']),
    request: JSON.parse(request_json) as ScheduleRequest,
  };
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** Public shape of a stored schedule. */
export function toSchedule(s: StoredSchedule): Schedule {
  return {
    id: s.id,
    agent_id: s.agent_id,
    name: s.name,
    status: s.status,
    when: s.when,
    ...s.request,
    next_run_at: iso(s.next_run_at),
    last_run_at: iso(s.last_run_at),
    run_count: s.run_count,
    created_at: new Date(s.created_at).toISOString(),
    updated_at: new Date(s.updated_at).toISOString(),
    created_by: s.created_by,
  };
}

/** Public shape of a stored run (`turn_status` filled in by the service when it can). */
export function toScheduleRun(r: StoredRun, turnStatus: string | null = null): ScheduleRun {
  return {
    id: r.id,
    schedule_id: r.schedule_id,
    slot_at: new Date(r.slot_at).toISOString(),
    status: r.status,
    claimed_at: new Date(r.claimed_at).toISOString(),
    started_at: iso(r.started_at),
    turn_id: r.turn_id,
    missed_slots: r.missed_slots,
    error: r.error,
    links: r.turn_id ? { turn: `/v1/turns/${r.turn_id}`, events: `/v1/turns/${r.turn_id}/events` } : null,
    turn_status: turnStatus,
  };
}

export class SqliteScheduleStore {
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
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  insert(s: StoredSchedule): void {
    this.db
      .prepare(
        `INSERT INTO schedules (id, agent_id, name, status, when_json, request_json, next_run_at, last_run_at,
           run_count, created_at, updated_at, created_by, idempotency_key, request_hash)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        s.id,
        s.agent_id,
        s.name,
        s.status,
        JSON.stringify(s.when),
        JSON.stringify(s.request),
        s.next_run_at,
        s.last_run_at,
        s.run_count,
        s.created_at,
        s.updated_at,
        JSON.stringify(s.created_by),
        s.idempotency_key,
        s.request_hash,
      );
  }

  /** Overwrite the mutable fields of a schedule (name, when, request, status, next_run_at). */
  update(s: StoredSchedule): void {
    this.db
      .prepare(
        `UPDATE schedules SET name = ?, status = ?, when_json = ?, request_json = ?, next_run_at = ?, updated_at = ?
         WHERE id = ?`,
      )
      .run(s.name, s.status, JSON.stringify(s.when), JSON.stringify(s.request), s.next_run_at, s.updated_at, s.id);
  }

  get(id: string): StoredSchedule | undefined {
    return this.one('id', id);
  }

  getByIdempotencyKey(key: string): StoredSchedule | undefined {
    return this.one('idempotency_key', key);
  }

  /** The schedule whose unique column `column` equals `value`. */
  private one(column: 'id' | 'idempotency_key', value: string): StoredSchedule | undefined {
    const row = this.db.prepare(`SELECT * FROM schedules WHERE ${column} = ?`).get(value) as ScheduleRow | undefined;
    return row ? toStored(row) : undefined;
  }

  /** Schedules of `agentId` that are not completed (what SCHEDULE_MAX_PER_AGENT limits). */
  countLive(agentId: string): number {
    const row = this.db
      .prepare(`SELECT COUNT(*) AS n FROM schedules WHERE agent_id = ? AND status IN ('active', 'paused')`)
      .get(agentId) as { n: number };
    return row.n;
  }

  /** Newest first (ids are UUIDv7, so id order is creation order); `before` is an exclusive id cursor. */
  list(q: { agent_id?: string; status?: ScheduleStatus; before?: string; limit: number }): StoredSchedule[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (q.agent_id !== undefined) (where.push('agent_id = ?'), args.push(q.agent_id));
    if (q.status !== undefined) (where.push('status = ?'), args.push(q.status));
    if (q.before !== undefined) (where.push('id < ?'), args.push(q.before));
    const sql = `SELECT * FROM schedules ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
    return (this.db.prepare(sql).all(...args, q.limit) as ScheduleRow[]).map(toStored);
  }

  /** Delete a schedule and (cascade) its runs. @returns whether a row was deleted */
  delete(id: string): boolean {
    this.db.prepare(`DELETE FROM schedule_runs WHERE schedule_id = ?`).run(id);
    return this.db.prepare(`DELETE FROM schedules WHERE id = ?`).run(id).changes === 1;
  }

  /** Active schedules whose `next_run_at` is at or before `now`, earliest first. */
  due(now: number, limit = 100): StoredSchedule[] {
    return (
      this.db
        .prepare(`SELECT * FROM schedules WHERE status = 'active' AND next_run_at <= ? ORDER BY next_run_at LIMIT ?`)
        .all(now, limit) as ScheduleRow[]
    ).map(toStored);
  }

  /**
   * Claim the slot `s.next_run_at` of `s` for this instance: advance the schedule per `plan` and
   * record the run as `claimed`, atomically. Returns the run, or undefined when another instance
   * (or an edit) changed the schedule since `s` was read — then nothing is written.
   */
  claim(s: StoredSchedule, plan: ClaimPlan, now: number, instanceId: string): StoredRun | undefined {
    return this.transaction(() => {
      const changed = this.db
        .prepare(
          `UPDATE schedules SET next_run_at = ?, status = ?, last_run_at = ?, run_count = run_count + 1
           WHERE id = ? AND status = 'active' AND next_run_at = ?`,
        )
        .run(plan.nextRunAt, plan.status, s.next_run_at, s.id, s.next_run_at).changes;
      if (changed !== 1) return undefined;
      const current = this.get(s.id)!;
      const run: StoredRun = {
        id: plan.runId,
        schedule_id: s.id,
        agent_id: s.agent_id,
        slot_at: s.next_run_at!,
        status: 'claimed',
        claimed_at: now,
        claimed_by: instanceId,
        started_at: null,
        turn_id: null,
        missed_slots: plan.missedSlots,
        error: null,
        request: current.request,
      };
      this.db
        .prepare(
          `INSERT INTO schedule_runs (id, schedule_id, agent_id, slot_at, status, claimed_at, claimed_by, missed_slots, request_json)
           VALUES (?, ?, ?, ?, 'claimed', ?, ?, ?, ?)`,
        )
        .run(run.id, run.schedule_id, run.agent_id, run.slot_at, run.claimed_at, run.claimed_by, run.missed_slots, JSON.stringify(run.request));
      return run;
    });
  }

  /** Runs left `claimed` (claimed, turn not recorded as started): crash recovery. Oldest first. */
  claimedRuns(): StoredRun[] {
    return (this.db.prepare(`SELECT * FROM schedule_runs WHERE status = 'claimed' ORDER BY claimed_at, id`).all() as RunRow[]).map(
      toStoredRun,
    );
  }

  /**
   * Take over a run left `claimed` by `previousOwner` (atomic; false when someone else took it or
   * it has moved on).
   */
  reclaim(runId: string, previousOwner: string, now: number, instanceId: string): boolean {
    return (
      this.db
        .prepare(`UPDATE schedule_runs SET claimed_by = ?, claimed_at = ? WHERE id = ? AND status = 'claimed' AND claimed_by = ?`)
        .run(instanceId, now, runId, previousOwner).changes === 1
    );
  }

  markStarted(runId: string, turnId: string, now: number): void {
    this.db
      .prepare(`UPDATE schedule_runs SET status = 'started', turn_id = ?, started_at = ? WHERE id = ? AND status = 'claimed'`)
      .run(turnId, now, runId);
  }

  markFailed(runId: string, error: { code: string; message: string }): void {
    this.db
      .prepare(`UPDATE schedule_runs SET status = 'failed', error_json = ? WHERE id = ? AND status = 'claimed'`)
      .run(JSON.stringify(error), runId);
  }

  getRun(id: string): StoredRun | undefined {
    const row = this.db.prepare(`SELECT * FROM schedule_runs WHERE id = ?`).get(id) as RunRow | undefined;
    return row ? toStoredRun(row) : undefined;
  }

  /** Runs of one schedule, newest first; `before` is an exclusive run-id cursor. */
  listRuns(scheduleId: string, q: { before?: string; limit: number }): StoredRun[] {
    const cursor = q.before === undefined ? '' : 'AND id < ?';
    const args = q.before === undefined ? [scheduleId] : [scheduleId, q.before];
    const rows = this.db.prepare(`SELECT * FROM schedule_runs WHERE schedule_id = ? ${cursor} ORDER BY id DESC LIMIT ?`).all(...args, q.limit);
    return (rows as RunRow[]).map(toStoredRun);
  }
}
