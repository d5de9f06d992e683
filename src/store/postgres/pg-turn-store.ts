/**
 * The turn store on Postgres (table `turns`, migration 4; also used by {@link PgTurnQueue} for
 * `owner` / `lease_until`). Same rules as the SQLite store: a finished turn never changes again,
 * a cancel request is stored once (the first time wins), an idempotency key is unique. A finish or
 * progress write made with a run's lease fence changes the record only while that lease is held
 * (src/store/lease-fence.ts): a run that lost its turn to another instance cannot finish it.
 *
 * Synchronous readers (the tracing wrapper, the metrics observer) cannot wait for the network:
 * {@link PgTurnStore.knownTrace} and {@link PgTurnStore.knownStartedAt} answer from what this
 * instance last wrote or read for a turn (a bounded in-memory map), undefined otherwise.
 */
import type { TranscriptItem } from '../../model/port.js';
import type { TurnTrace } from '../../telemetry/trace-context.js';
import type { StoredTaskBinding, TurnRecordStatus } from '../../turns/turn-kinds.js';
import type { CreateTurnInput, TurnRecord } from '../../turns/turn-service-types.js';
import { turnRecordFromRow as toRecord, type TurnRow } from '../turn-rows.js';
import type { ListTurnsQuery, NewTurn, TurnOutcome, TurnStore } from '../turn-store.js';
import { leaseLost, type LeaseFence } from '../lease-fence.js';
import type { PgDatabase, PgQueryable } from './pg-database.js';
import { HOLDS_LEASE } from './pg-lease-fence.js';

type Row = TurnRow & { trace_parent: string | null };

const RECORD_COLUMNS = `id, agent_id, status, kind, origin, model, created_at, started_at, completed_at,
  output_text, stop_reason, steps, input_tokens, output_tokens, usage_unknown, error, metadata, trace_id, trace_parent, request`;

/** Turns remembered for the synchronous readers. */
const KNOWN_MAX = 10_000;

const FINISHED = `status IN ('completed', 'failed', 'cancelled')`;

/**
 * The turns continuing a turn (`previous_turn_id`) of one agent, newest first, through the
 * expression index `turns_previous` of migration 016 (its expression must stay written as here).
 */
export const PG_CONTINUATIONS_SQL = `SELECT id FROM turns WHERE agent_id = $1 AND (request::jsonb ->> 'previous_turn_id') = $2 ORDER BY id DESC`;

export class PgTurnStore implements TurnStore {
  private readonly known = new Map<string, { trace: TurnTrace | null; started_at: string | null }>();

  /**
   * @param log the turn event log on the same database: with it, {@link finishInBatch} commits the
   * finished record with the turn's next event (its terminal event) in one transaction.
   */
  constructor(
    private readonly db: PgDatabase,
    private readonly log?: { joinNext(streamId: string, write: (tx: PgQueryable) => Promise<void>): Promise<void> },
  ) {}

  private remember(id: string, v: { trace: TurnTrace | null; started_at: string | null }): void {
    this.known.delete(id);
    this.known.set(id, v);
    if (this.known.size > KNOWN_MAX) this.known.delete(this.known.keys().next().value!);
  }

  /** The trace of a turn this instance stored or read (synchronous; undefined when not known here). */
  knownTrace(id: string): TurnTrace | null | undefined {
    return this.known.get(id)?.trace;
  }

  /** `started_at` of a turn as this instance last read it (synchronous; undefined when not known here). */
  knownStartedAt(id: string): string | null | undefined {
    return this.known.get(id)?.started_at;
  }

  async insert(t: NewTurn): Promise<void> {
    await this.db.query(
      `INSERT INTO turns (id, agent_id, status, kind, origin, model, created_at, metadata, request, idempotency_key, request_hash, binding, trace_id, trace_parent)
       VALUES ($1, $2, 'queued', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [
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
      ],
    );
    this.remember(t.id, { trace: t.trace ?? null, started_at: null });
  }

  async get(id: string): Promise<TurnRecord | undefined> {
    const { rows } = await this.db.query<Row>(`SELECT ${RECORD_COLUMNS} FROM turns WHERE id = $1`, [id]);
    const r = rows[0];
    if (!r) return undefined;
    this.remember(id, { trace: r.trace_id === null ? null : { trace_id: r.trace_id, parent: r.trace_parent }, started_at: r.started_at });
    return toRecord(r);
  }

  async getTrace(id: string): Promise<TurnTrace | null | undefined> {
    const { rows } = await this.db.query<{ trace_id: string | null; trace_parent: string | null }>('SELECT trace_id, trace_parent FROM turns WHERE id = $1', [id]);
    if (!rows[0]) return undefined;
    return rows[0].trace_id === null ? null : { trace_id: rows[0].trace_id, parent: rows[0].trace_parent };
  }

  async getRequest(id: string): Promise<CreateTurnInput | undefined> {
    const v = await this.column<string>('request', id);
    return v === undefined ? undefined : (JSON.parse(v!) as CreateTurnInput);
  }

  async getBinding(id: string): Promise<StoredTaskBinding | null | undefined> {
    const v = await this.column<string | null>('binding', id);
    return v === undefined ? undefined : v === null ? null : (JSON.parse(v) as StoredTaskBinding);
  }

  async getLegacyTranscript(id: string): Promise<TranscriptItem[] | null | undefined> {
    const v = await this.column<string | null>('transcript', id);
    return v === undefined ? undefined : v === null ? null : (JSON.parse(v) as TranscriptItem[]);
  }

  /** One column of one turn; undefined when the turn does not exist. */
  private async column<T>(name: 'request' | 'binding' | 'transcript' | 'cancel_requested_at', id: string): Promise<T | undefined> {
    const { rows } = await this.db.query<Record<string, T>>(`SELECT ${name} AS v FROM turns WHERE id = $1`, [id]);
    return rows[0] ? rows[0].v : undefined;
  }

  async findByIdempotencyKey(key: string): Promise<{ id: string; request_hash: string | null } | undefined> {
    const { rows } = await this.db.query<{ id: string; request_hash: string | null }>('SELECT id, request_hash FROM turns WHERE idempotency_key = $1', [key]);
    return rows[0];
  }

  finish(id: string, o: TurnOutcome, fence?: LeaseFence): Promise<boolean> {
    return this.finishFenced(id, o, fence);
  }

  /** See {@link TurnStore.finishInBatch}: joined to the turn's next event (`PgEventLog.joinNext`, ./pg-event-log.ts); without a log it is `finish`. */
  finishInBatch(id: string, o: TurnOutcome, fence?: LeaseFence): Promise<boolean> {
    if (!this.log) return this.finish(id, o, fence);
    let changed = false;
    return this.log.joinNext(id, async (tx) => void (changed = await this.finishFenced(id, o, fence, tx))).then(() => changed);
  }

  /**
   * {@link finishWhere} an unfinished turn, with `fence` only while the run holds the lease: the
   * condition is part of the UPDATE; when no row changed, a fence no longer held rejects with
   * `LeaseLostError` (a finished turn still answers false).
   */
  private async finishFenced(id: string, o: TurnOutcome, fence: LeaseFence | undefined, db: PgQueryable = this.db): Promise<boolean> {
    if (!fence) return this.finishWhere(id, o, `NOT ${FINISHED}`, db);
    if (fence.lost) throw leaseLost(fence);
    const changed = await this.finishWhere(id, o, `NOT ${FINISHED} AND owner = $12 AND lease_epoch = $13`, db, [fence.owner, fence.epoch]);
    if (changed) return true;
    const { rows } = await db.query(`SELECT 1 FROM turns t WHERE t.id = $1 AND ${HOLDS_LEASE('$2', '$3')}`, [id, fence.owner, fence.epoch]);
    if (rows.length === 0) throw leaseLost(fence);
    return false;
  }

  finishQueued(id: string, o: TurnOutcome): Promise<boolean> {
    return this.finishWhere(id, o, `status = 'queued'`);
  }

  private async finishWhere(id: string, o: TurnOutcome, condition: string, db: PgQueryable = this.db, extra: unknown[] = []): Promise<boolean> {
    const r = await db.query(
      `UPDATE turns SET status = $1, completed_at = $2, output_text = $3, stop_reason = $4, steps = $5,
         input_tokens = $6, output_tokens = $7, error = $8, transcript = $9, owner = NULL, lease_until = NULL, usage_unknown = $11
       WHERE id = $10 AND ${condition}`,
      [
        o.status,
        o.completed_at,
        o.output_text,
        o.stop_reason,
        o.steps,
        o.usage?.input_tokens ?? 0,
        o.usage?.output_tokens ?? 0,
        o.error === null ? null : JSON.stringify(o.error),
        o.transcript ? JSON.stringify(o.transcript) : null,
        id,
        o.usage === null,
        ...extra,
      ],
    );
    return r.rowCount === 1;
  }

  async updateProgress(id: string, p: { steps: number; usage: { input_tokens: number; output_tokens: number } | null }, fence?: LeaseFence): Promise<void> {
    if (fence?.lost) return;
    const args = [p.steps, p.usage?.input_tokens ?? 0, p.usage?.output_tokens ?? 0, id, p.usage === null];
    await this.db.query(
      `UPDATE turns SET steps = $1, input_tokens = $2, output_tokens = $3, usage_unknown = $5 WHERE id = $4 AND NOT ${FINISHED}${fence ? ' AND owner = $6 AND lease_epoch = $7' : ''}`,
      fence ? [...args, fence.owner, fence.epoch] : args,
    );
  }

  async requestCancel(id: string, at: string): Promise<boolean> {
    const r = await this.db.query(`UPDATE turns SET cancel_requested_at = COALESCE(cancel_requested_at, $1) WHERE id = $2 AND NOT ${FINISHED}`, [at, id]);
    return r.rowCount === 1;
  }

  async cancelRequestedAt(id: string): Promise<string | null | undefined> {
    return this.column<string | null>('cancel_requested_at', id);
  }

  async list(q: ListTurnsQuery): Promise<TurnRecord[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    const add = (sql: string, v: unknown) => (args.push(v), where.push(`${sql} $${args.length}`));
    if (q.agent_id !== undefined) add('agent_id =', q.agent_id);
    if (q.status !== undefined) add('status =', q.status);
    if (q.before !== undefined) add('id <', q.before);
    args.push(q.limit);
    const sql = `SELECT ${RECORD_COLUMNS} FROM turns ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${args.length}`;
    return (await this.db.query<Row>(sql, args)).rows.map(toRecord);
  }

  async continuations(id: string, agentId: string): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(PG_CONTINUATIONS_SQL, [agentId, id]);
    return rows.map((r) => r.id);
  }

  async idsWithStatus(statuses: TurnRecordStatus[]): Promise<string[]> {
    if (statuses.length === 0) return [];
    const { rows } = await this.db.query<{ id: string }>('SELECT id FROM turns WHERE status = ANY($1) ORDER BY id', [statuses]);
    return rows.map((r) => r.id);
  }
}
