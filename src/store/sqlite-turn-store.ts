/**
 * SQLite implementation of {@link TurnStore}: table `turns` (also used by the SQLite TurnQueue for
 * `owner`/`lease_until`). better-sqlite3 is synchronous; methods are async to meet the port.
 */
import type { Database } from './database.js';
import { StatementCache } from './statement-cache.js';
import { turnRecordFromRow as toRecord, type TurnRow } from './turn-rows.js';
import type { ListTurnsQuery, NewTurn, TurnOutcome, TurnStore } from './turn-store.js';
import type { TranscriptItem } from '../model/port.js';
import type { TurnTrace } from '../telemetry/trace-context.js';
import type { StoredTaskBinding, TurnRecordStatus } from '../turns/turn-kinds.js';
import type { CreateTurnInput, TurnRecord } from '../turns/turn-service-types.js';

/** A `turns` row as selected by RECORD_COLUMNS: the record's plain fields, JSON columns as text. */
type Row = TurnRow;

const RECORD_COLUMNS = `id, agent_id, status, kind, origin, model, created_at, started_at, completed_at,
  output_text, stop_reason, steps, input_tokens, output_tokens, usage_unknown, error, metadata, trace_id, request`;

/** Columns added after the first schema (added to older databases at open). */
const ADDED_COLUMNS: [string, string][] = [
  ['owner', 'TEXT'],
  ['lease_until', 'INTEGER'],
  ['cancel_requested_at', 'TEXT'],
  ['binding', 'TEXT'],
  // The turn's trace (src/telemetry/trace-context.ts).
  ['trace_id', 'TEXT'],
  ['trace_parent', 'TEXT'],
  // 1 when the model server reported no usage for a response (record usage null, not zeros).
  ['usage_unknown', 'INTEGER'],
];

const FINISHED = `status IN ('completed', 'failed', 'cancelled')`;

/**
 * The turns continuing a turn (`previous_turn_id`) of one agent, newest first. It reads the
 * expression index `turns_previous` (agent_id, json_extract(request, '$.previous_turn_id'), id:
 * equality on the first two, the order from the third, so SQLite prefers it to `turns_agent`),
 * whose expression must stay written exactly as here for SQLite to use it; a double-text walking
 * a chain runs it once per turn of the chain.
 */
export const CONTINUATIONS_SQL = `SELECT id FROM turns WHERE agent_id = ? AND json_extract(request, '$.previous_turn_id') = ? ORDER BY id DESC`;

export class SqliteTurnStore implements TurnStore {
  /** Statements by SQL text, compiled once (src/store/statement-cache.ts). */
  private readonly sql: StatementCache;

  /**
   * @param batch the turn event log on the same database: with it, {@link finishInBatch} commits
   *   a finished record with the log's next batch (with the terminal event queued right after).
   */
  constructor(db: Database, private readonly batch?: { joinBatch(write: () => void): Promise<void> }) {
    this.sql = new StatementCache(db);
    db.exec(`CREATE TABLE IF NOT EXISTS turns (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      status TEXT NOT NULL,
      kind TEXT NOT NULL,
      origin TEXT NOT NULL,
      model TEXT NOT NULL,
      created_at TEXT NOT NULL,
      started_at TEXT,
      completed_at TEXT,
      output_text TEXT,
      stop_reason TEXT,
      steps INTEGER NOT NULL DEFAULT 0,
      input_tokens INTEGER NOT NULL DEFAULT 0,
      output_tokens INTEGER NOT NULL DEFAULT 0,
      error TEXT,
      metadata TEXT,
      request TEXT NOT NULL,
      idempotency_key TEXT UNIQUE,
      request_hash TEXT,
      transcript TEXT
    );
    CREATE INDEX IF NOT EXISTS turns_agent ON turns (agent_id, id);
    CREATE INDEX IF NOT EXISTS turns_status ON turns (status, id);
    CREATE INDEX IF NOT EXISTS turns_previous ON turns (agent_id, json_extract(request, '$.previous_turn_id'), id);`);
    const have = new Set((db.prepare('PRAGMA table_info(turns)').all() as { name: string }[]).map((c) => c.name));
    for (const [name, type] of ADDED_COLUMNS) if (!have.has(name)) db.exec(`ALTER TABLE turns ADD COLUMN ${name} ${type}`);
  }

  async insert(t: NewTurn): Promise<void> {
    this.sql.get(
        `INSERT INTO turns (id, agent_id, status, kind, origin, model, created_at, metadata, request, idempotency_key, request_hash, binding, trace_id, trace_parent)
         VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        t.id,
        t.agent_id,
        t.kind,
        JSON.stringify(t.origin),
        t.model,
        t.created_at,
        t.metadata === null ? null : JSON.stringify(t.metadata),
        JSON.stringify(t.request),
        t.idempotency_key,
        t.request_hash,
        t.binding ? JSON.stringify(t.binding) : null,
        t.trace?.trace_id ?? null,
        t.trace?.parent ?? null,
      );
  }

  async get(id: string): Promise<TurnRecord | undefined> {
    const row = this.sql.get(`SELECT ${RECORD_COLUMNS} FROM turns WHERE id = ?`).get(id) as Row | undefined;
    return row ? toRecord(row) : undefined;
  }

  /**
   * Synchronous status read (SQLite only; not part of the port) for callers that are still
   * synchronous (the schedule service's run list).
   */
  statusSync(id: string): string | undefined {
    return (this.sql.get('SELECT status FROM turns WHERE id = ?').get(id) as { status: string } | undefined)?.status;
  }

  async getTrace(id: string): Promise<TurnTrace | null | undefined> {
    return this.getTraceSync(id);
  }

  /** Synchronous {@link getTrace} (SQLite only; for the synchronous tracing wrapper). */
  getTraceSync(id: string): TurnTrace | null | undefined {
    const row = this.sql.get('SELECT trace_id, trace_parent FROM turns WHERE id = ?').get(id) as { trace_id: string | null; trace_parent: string | null } | undefined;
    if (!row) return undefined;
    return row.trace_id === null ? null : { trace_id: row.trace_id, parent: row.trace_parent };
  }

  /** Synchronous `started_at` (SQLite only; for the synchronous metrics observer). */
  startedAtSync(id: string): string | null | undefined {
    return (this.sql.get('SELECT started_at FROM turns WHERE id = ?').get(id) as { started_at: string | null } | undefined)?.started_at;
  }

  async getRequest(id: string): Promise<CreateTurnInput | undefined> {
    const row = this.sql.get('SELECT request FROM turns WHERE id = ?').get(id) as { request: string } | undefined;
    return row ? (JSON.parse(row.request) as CreateTurnInput) : undefined;
  }

  async getBinding(id: string): Promise<StoredTaskBinding | null | undefined> {
    const row = this.sql.get('SELECT binding FROM turns WHERE id = ?').get(id) as { binding: string | null } | undefined;
    if (!row) return undefined;
    return row.binding === null ? null : (JSON.parse(row.binding) as StoredTaskBinding);
  }

  async getLegacyTranscript(id: string): Promise<TranscriptItem[] | null | undefined> {
    const row = this.sql.get('SELECT transcript FROM turns WHERE id = ?').get(id) as { transcript: string | null } | undefined;
    if (!row) return undefined;
    return row.transcript === null ? null : (JSON.parse(row.transcript) as TranscriptItem[]);
  }

  async findByIdempotencyKey(key: string): Promise<{ id: string; request_hash: string | null } | undefined> {
    return this.sql.get('SELECT id, request_hash FROM turns WHERE idempotency_key = ?').get(key) as
      | { id: string; request_hash: string | null }
      | undefined;
  }

  async finish(id: string, o: TurnOutcome): Promise<boolean> {
    return this.finishWhere(id, o, `NOT ${FINISHED}`);
  }

  /** See {@link TurnStore.finishInBatch}; without a batch log it is `finish`. */
  finishInBatch(id: string, o: TurnOutcome): Promise<boolean> {
    if (!this.batch) return this.finish(id, o);
    let changed = false;
    return this.batch.joinBatch(() => void (changed = this.finishWhere(id, o, `NOT ${FINISHED}`))).then(() => changed);
  }

  async finishQueued(id: string, o: TurnOutcome): Promise<boolean> {
    return this.finishWhere(id, o, `status = 'queued'`);
  }

  private finishWhere(id: string, o: TurnOutcome, condition: string): boolean {
    const r = this.sql.get(
        `UPDATE turns SET status = ?, completed_at = ?, output_text = ?, stop_reason = ?, steps = ?,
           input_tokens = ?, output_tokens = ?, usage_unknown = ?, error = ?, transcript = ?, owner = NULL, lease_until = NULL
         WHERE id = ? AND ${condition}`,
      )
      .run(
        o.status,
        o.completed_at,
        o.output_text,
        o.stop_reason,
        o.steps,
        o.usage?.input_tokens ?? 0,
        o.usage?.output_tokens ?? 0,
        o.usage === null ? 1 : 0,
        o.error === null ? null : JSON.stringify(o.error),
        o.transcript ? JSON.stringify(o.transcript) : null,
        id,
      );
    return r.changes === 1;
  }

  async updateProgress(id: string, p: { steps: number; usage: { input_tokens: number; output_tokens: number } | null }): Promise<void> {
    this.sql.get(`UPDATE turns SET steps = ?, input_tokens = ?, output_tokens = ?, usage_unknown = ? WHERE id = ? AND NOT ${FINISHED}`)
      .run(p.steps, p.usage?.input_tokens ?? 0, p.usage?.output_tokens ?? 0, p.usage === null ? 1 : 0, id);
  }

  async requestCancel(id: string, at: string): Promise<boolean> {
    const r = this.sql.get(`UPDATE turns SET cancel_requested_at = COALESCE(cancel_requested_at, ?) WHERE id = ? AND NOT ${FINISHED}`)
      .run(at, id);
    return r.changes === 1;
  }

  async cancelRequestedAt(id: string): Promise<string | null | undefined> {
    const row = this.sql.get('SELECT cancel_requested_at FROM turns WHERE id = ?').get(id) as
      | { cancel_requested_at: string | null }
      | undefined;
    return row ? row.cancel_requested_at : undefined;
  }

  async list(q: ListTurnsQuery): Promise<TurnRecord[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    if (q.agent_id !== undefined) {
      where.push('agent_id = ?');
      args.push(q.agent_id);
    }
    if (q.status !== undefined) {
      where.push('status = ?');
      args.push(q.status);
    }
    if (q.before !== undefined) {
      where.push('id < ?');
      args.push(q.before);
    }
    const sql = `SELECT ${RECORD_COLUMNS} FROM turns ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY id DESC LIMIT ?`;
    return (this.sql.get(sql).all(...args, q.limit) as Row[]).map(toRecord);
  }

  async continuations(id: string, agentId: string): Promise<string[]> {
    const rows = this.sql.get(CONTINUATIONS_SQL).all(agentId, id) as { id: string }[];
    return rows.map((r) => r.id);
  }

  async idsWithStatus(statuses: TurnRecordStatus[]): Promise<string[]> {
    if (statuses.length === 0) return [];
    const rows = this.sql.get(`SELECT id FROM turns WHERE status IN (${statuses.map(() => '?').join(',')}) ORDER BY id`)
      .all(...statuses) as { id: string }[];
    return rows.map((r) => r.id);
  }
}
