/**
 * The schedule store on Postgres (tables of migration 1). Same rules as the SQLite store:
 * - a claim is `UPDATE … WHERE id = $ AND status = 'active' AND next_run_at = $` plus the run
 *   INSERT in one transaction: under READ COMMITTED the second of two concurrent UPDATEs waits for
 *   the first, re-checks the WHERE on the new row version and changes nothing, so a slot is
 *   claimed by exactly one instance;
 * - create and modify take a transaction-scoped advisory lock per agent
 *   (`pg_advisory_xact_lock(hashtext('schedules:' || agent_id))`) before counting the agent's live
 *   schedules, so SCHEDULE_MAX_PER_AGENT holds across instances; modify also locks the row
 *   (`SELECT … FOR UPDATE`), so an edit never interleaves with a claim.
 */
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
} from '../../schedules/store.js';
import type { ScheduleStatus } from '../../schedules/types.js';
import type { PgDatabase, PgQueryable } from './pg-database.js';

const UNIQUE_VIOLATION = '23505';

const lockAgent = (q: PgQueryable, agentId: string) => q.query(`SELECT pg_advisory_xact_lock(hashtext('schedules:' || $1))`, [agentId]);

async function countLive(q: PgQueryable, agentId: string): Promise<number> {
  const { rows } = await q.query<{ n: number }>(`SELECT count(*) AS n FROM schedules WHERE agent_id = $1 AND status IN ('active', 'paused')`, [agentId]);
  return rows[0].n;
}

async function one(q: PgQueryable, column: 'id' | 'idempotency_key', value: string, forUpdate = false): Promise<StoredSchedule | undefined> {
  const { rows } = await q.query<ScheduleRow>(`SELECT * FROM schedules WHERE ${column} = $1${forUpdate ? ' FOR UPDATE' : ''}`, [value]);
  return rows[0] ? toStored(rows[0]) : undefined;
}

export class PgScheduleStore implements ScheduleStore {
  constructor(private readonly db: PgDatabase) {}

  async create(s: StoredSchedule, maxLive: number): Promise<CreateOutcome> {
    try {
      return await this.db.transaction(async (tx): Promise<CreateOutcome> => {
        await lockAgent(tx, s.agent_id);
        if (s.idempotency_key !== null) {
          const existing = await one(tx, 'idempotency_key', s.idempotency_key);
          if (existing) return { kind: 'exists', existing };
        }
        const live = await countLive(tx, s.agent_id);
        if (live >= maxLive) return { kind: 'limit', live };
        await tx.query(
          `INSERT INTO schedules (id, agent_id, name, status, when_json, request_json, next_run_at, last_run_at,
             run_count, created_at, updated_at, created_by, idempotency_key, request_hash)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
          [
            s.id, s.agent_id, s.name, s.status, JSON.stringify(s.when), JSON.stringify(s.request), s.next_run_at, s.last_run_at,
            s.run_count, s.created_at, s.updated_at, JSON.stringify(s.created_by), s.idempotency_key, s.request_hash,
          ],
        );
        return { kind: 'created' };
      });
    } catch (err) {
      // The same key created concurrently for another agent (a different lock): the key's owner wins.
      if ((err as { code?: string }).code === UNIQUE_VIOLATION && s.idempotency_key !== null) {
        const existing = await this.getByIdempotencyKey(s.idempotency_key);
        if (existing) return { kind: 'exists', existing };
      }
      throw err;
    }
  }

  async modify(id: string, change: (current: StoredSchedule, liveCount: number) => StoredSchedule): Promise<StoredSchedule | undefined> {
    return this.db.transaction(async (tx) => {
      const peek = await one(tx, 'id', id);
      if (!peek) return undefined;
      await lockAgent(tx, peek.agent_id);
      const current = await one(tx, 'id', id, true);
      if (!current) return undefined;
      const s = change(cloneSchedule(current), await countLive(tx, current.agent_id));
      await tx.query(
        `UPDATE schedules SET name = $1, status = $2, when_json = $3, request_json = $4, next_run_at = $5, updated_at = $6 WHERE id = $7`,
        [s.name, s.status, JSON.stringify(s.when), JSON.stringify(s.request), s.next_run_at, s.updated_at, id],
      );
      return s;
    });
  }

  async remove(id: string): Promise<StoredSchedule | undefined> {
    const { rows } = await this.db.query<ScheduleRow>(`DELETE FROM schedules WHERE id = $1 RETURNING *`, [id]);
    return rows[0] ? toStored(rows[0]) : undefined;
  }

  get(id: string): Promise<StoredSchedule | undefined> {
    return one(this.db, 'id', id);
  }

  getByIdempotencyKey(key: string): Promise<StoredSchedule | undefined> {
    return one(this.db, 'idempotency_key', key);
  }

  countLive(agentId: string): Promise<number> {
    return countLive(this.db, agentId);
  }

  async list(q: { agent_id?: string; status?: ScheduleStatus; before?: string; limit: number }): Promise<StoredSchedule[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    const add = (sql: string, v: unknown) => (args.push(v), where.push(sql.replace('?', `$${args.length}`)));
    if (q.agent_id !== undefined) add('agent_id = ?', q.agent_id);
    if (q.status !== undefined) add('status = ?', q.status);
    if (q.before !== undefined) add('id < ?', q.before);
    args.push(q.limit);
    const sql = `SELECT * FROM schedules ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${args.length}`;
    return (await this.db.query<ScheduleRow>(sql, args)).rows.map(toStored);
  }

  async due(now: number, limit = 100): Promise<StoredSchedule[]> {
    const { rows } = await this.db.query<ScheduleRow>(
      `SELECT * FROM schedules WHERE status = 'active' AND next_run_at <= $1 ORDER BY next_run_at LIMIT $2`,
      [now, limit],
    );
    return rows.map(toStored);
  }

  async claim(s: StoredSchedule, plan: ClaimPlan, now: number, instanceId: string): Promise<StoredRun | undefined> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ request_json: string }>(
        `UPDATE schedules SET next_run_at = $1, status = $2, last_run_at = $3, run_count = run_count + 1
         WHERE id = $4 AND status = 'active' AND next_run_at = $3 RETURNING request_json`,
        [plan.nextRunAt, plan.status, s.next_run_at, s.id],
      );
      if (rows.length !== 1) return undefined;
      const run = claimedRun(s, plan, now, instanceId, JSON.parse(rows[0].request_json) as StoredRun['request']);
      await tx.query(
        `INSERT INTO schedule_runs (id, schedule_id, agent_id, slot_at, status, claimed_at, claimed_by, missed_slots, request_json)
         VALUES ($1, $2, $3, $4, 'claimed', $5, $6, $7, $8)`,
        [run.id, run.schedule_id, run.agent_id, run.slot_at, run.claimed_at, run.claimed_by, run.missed_slots, rows[0].request_json],
      );
      return run;
    });
  }

  async claimedRuns(): Promise<StoredRun[]> {
    const { rows } = await this.db.query<RunRow>(`SELECT * FROM schedule_runs WHERE status = 'claimed' ORDER BY claimed_at, id`);
    return rows.map(toStoredRun);
  }

  async reclaim(runId: string, previousOwner: string, now: number, instanceId: string): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE schedule_runs SET claimed_by = $1, claimed_at = $2 WHERE id = $3 AND status = 'claimed' AND claimed_by = $4`,
      [instanceId, now, runId, previousOwner],
    );
    return r.rowCount === 1;
  }

  async markStarted(runId: string, turnId: string, now: number): Promise<void> {
    await this.db.query(`UPDATE schedule_runs SET status = 'started', turn_id = $1, started_at = $2 WHERE id = $3 AND status = 'claimed'`, [
      turnId,
      now,
      runId,
    ]);
  }

  async markFailed(runId: string, error: { code: string; message: string }): Promise<void> {
    await this.db.query(`UPDATE schedule_runs SET status = 'failed', error_json = $1 WHERE id = $2 AND status = 'claimed'`, [JSON.stringify(error), runId]);
  }

  async getRun(id: string): Promise<StoredRun | undefined> {
    const { rows } = await this.db.query<RunRow>(`SELECT * FROM schedule_runs WHERE id = $1`, [id]);
    return rows[0] ? toStoredRun(rows[0]) : undefined;
  }

  async listRuns(scheduleId: string, q: { before?: string; limit: number }): Promise<StoredRun[]> {
    const { rows } =
      q.before === undefined
        ? await this.db.query<RunRow>(`SELECT * FROM schedule_runs WHERE schedule_id = $1 ORDER BY id DESC LIMIT $2`, [scheduleId, q.limit])
        : await this.db.query<RunRow>(`SELECT * FROM schedule_runs WHERE schedule_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`, [
            scheduleId,
            q.before,
            q.limit,
          ]);
    return rows.map(toStoredRun);
  }
}
