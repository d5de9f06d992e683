/**
 * The event log on Postgres (table `event_log(stream_id, seq, type, data, created_at)`, migration 4).
 * Stores only; wake-ups are an EventNotifier's job (./pg-notifier.ts).
 *
 * Batching: streams are spread over {@link LANES} lanes by a hash of their id; appends made while
 * their lane's previous INSERT is in flight wait and go together in ONE multi-row INSERT — across
 * the lane's streams — so many fast producers cost one round trip per batch, not one per event or
 * per stream (at most {@link MAX_BATCH} events a statement), and a few lanes keep several
 * statements in flight. A stream always uses the same lane, so its appends stay in order. Per-stream
 * `seq` stays gapless and in append order: one statement numbers each stream's part of the batch
 * as `max(seq) + 1 …` of that stream; when another instance appended to one of the streams at the
 * same moment, the primary key refuses the batch, which is numbered again and retried.
 * Unserializable fields are replaced by markers (src/store/safe-json.ts), as in SQLite.
 *
 * Fencing (src/store/lease-fence.ts): an append made with a run's lease fence is stored only
 * while the turn's row shows that owner and claim epoch — checked by the INSERT itself, which locks
 * the row `FOR SHARE` until the commit — else it rejects with `LeaseLostError`; so is every later
 * append with that fence, without a statement. Whatever a hung connection delivers late for a run
 * that lost its turn is refused. Closed streams: a stream whose last stored event is one of the
 * log's terminal types takes no more events (`StreamClosedError`), nor do events behind a terminal
 * one in the same batch. Refused events get no seq: the others of the batch are numbered gaplessly.
 *
 * Joined writes ({@link PgEventLog.joinNext}): another store's statements run in the same
 * transaction as the next event of one stream, after the batch's INSERT — a turn's finished record
 * with its terminal event, so no crash leaves one without the other; a write joined to a refused
 * event is refused with it.
 */
import type { EventLog, LoggedEvent } from '../event-log.js';
import { leaseLost, StreamClosedError, type LeaseFence } from '../lease-fence.js';
import { safeStringify } from '../safe-json.js';
import type { PgDatabase, PgQueryable } from './pg-database.js';

/** A write of another store that commits with the next event of its stream ({@link PgEventLog.joinNext}). */
interface JoinedWrite {
  write: (tx: PgQueryable) => Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface Pending<E extends { type: string }> {
  streamId: string;
  event: E;
  json: string;
  replaced: boolean;
  /** Writes joined to this event's transaction. */
  joined?: JoinedWrite[];
  /** The appending run's lease on the turn (src/store/lease-fence.ts). */
  fence?: LeaseFence;
  resolve: (logged: LoggedEvent<E>) => void;
  reject: (err: unknown) => void;
}

interface Row {
  stream_id: string;
  seq: number;
  data: string;
  created_at: string;
}

const UNIQUE_VIOLATION = '23505';
/**
 * Postgres aborted the batch's transaction to break a lock cycle (its fenced rows locked
 * `FOR SHARE` against another transaction's row locks taken in another order): nothing of it was
 * committed, so it is run again (https://www.postgresql.org/docs/current/explicit-locking.html#LOCKING-DEADLOCKS).
 */
const DEADLOCK_DETECTED = '40P01';
const MAX_BATCH = 1000;
/** INSERTs in flight at most (one per lane). */
const LANES = 2;

interface Lane<E extends { type: string }> {
  waiting: Pending<E>[];
  flushing: boolean;
}

/** The lane of a stream (FNV-1a of its id). */
/** The lane (0 or 1) whose batches carry `streamId`'s appends (FNV-1a of the id): appends of streams in one lane can share a batch. */
export function laneOf(streamId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < streamId.length; i++) h = Math.imul(h ^ streamId.charCodeAt(i), 0x01000193);
  return (h >>> 0) % LANES;
}
const MAX_RETRIES = 20;

export class PgEventLog<E extends { type: string } = { type: string }> implements EventLog<E> {
  /** Per lane: appends waiting for the next batch (in append order) while its INSERT is in flight. */
  private readonly lanes: Lane<E>[] = Array.from({ length: LANES }, () => ({ waiting: [], flushing: false }));

  /** Per stream: writes waiting for that stream's next append ({@link joinNext}). */
  private readonly joined = new Map<string, JoinedWrite[]>();

  /** Event types that end a stream: nothing is stored after one. */
  private readonly closing: ReadonlySet<string>;

  /** @param opts.terminalTypes the event types that end a stream of this log (nothing is stored after one). */
  constructor(
    private readonly db: PgDatabase,
    opts: { terminalTypes?: readonly string[] } = {},
  ) {
    this.closing = new Set(opts.terminalTypes ?? []);
  }

  /**
   * Run `write` (statements of another store on this database, e.g. a turn's finished record) in
   * the transaction that stores the next event appended to `streamId`, so both are committed
   * together or not at all. Append that event in the same synchronous step; a write no append
   * claimed by the next event-loop turn runs alone in its own transaction. `write` runs inside a
   * savepoint: when it throws, its statements are rolled back alone, the promise rejects with what
   * it threw, and the events of the batch are still stored. Resolves after the commit.
   */
  joinNext(streamId: string, write: (tx: PgQueryable) => Promise<void>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const j: JoinedWrite = { write, resolve, reject };
      const list = this.joined.get(streamId);
      if (list) list.push(j);
      else this.joined.set(streamId, [j]);
      setImmediate(() => {
        const waiting = this.joined.get(streamId);
        const at = waiting?.indexOf(j) ?? -1;
        if (at < 0) return; // claimed by an append
        waiting!.splice(at, 1);
        if (waiting!.length === 0) this.joined.delete(streamId);
        this.db
          .transaction((tx) => write(tx))
          .then(resolve, reject);
      });
    });
  }

  append(streamId: string, event: E, fence?: LeaseFence): Promise<LoggedEvent<E>> {
    const { json, replaced } = safeStringify(event);
    const joined = this.joined.get(streamId);
    if (joined) this.joined.delete(streamId);
    return new Promise<LoggedEvent<E>>((resolve, reject) => {
      const lane = this.lanes[laneOf(streamId)];
      lane.waiting.push({ streamId, event, json, replaced, joined, ...(fence ? { fence } : {}), resolve, reject });
      if (!lane.flushing) {
        lane.flushing = true;
        void this.flush(lane);
      }
    });
  }

  /** Insert what waits in `lane`, batch after batch, until nothing does. */
  private async flush(lane: Lane<E>): Promise<void> {
    while (lane.waiting.length > 0) {
      const batch = this.refuseEarly(lane.waiting.splice(0, MAX_BATCH));
      if (batch.length === 0) continue;
      try {
        const created = new Date().toISOString();
        const outcomes = await this.insertBatch(batch, created);
        batch.forEach((p, i) => {
          const o = outcomes[i];
          if (o.seq === null) return this.refuse(p, o.fenced ? leaseLost(p.fence!) : new StreamClosedError(p.streamId, String(p.event.type)));
          p.resolve({ streamId: p.streamId, seq: o.seq, createdAt: created, event: p.replaced ? (JSON.parse(p.json) as E) : p.event });
        });
      } catch (err) {
        for (const p of batch) this.refuse(p, err);
      }
    }
    lane.flushing = false;
  }

  /** Reject `p` and the writes joined to it with `err`. */
  private refuse(p: Pending<E>, err: unknown): void {
    p.reject(err);
    for (const j of p.joined ?? []) j.reject(err);
  }

  /**
   * `batch` without what is refused before any statement: appends whose fence is known lost, and
   * appends following a terminal event of their stream in this batch.
   */
  private refuseEarly(batch: Pending<E>[]): Pending<E>[] {
    const ended = new Set<string>();
    return batch.filter((p) => {
      if (p.fence?.lost) return void this.refuse(p, leaseLost(p.fence));
      if (ended.has(p.streamId)) return void this.refuse(p, new StreamClosedError(p.streamId, String(p.event.type)));
      if (this.closing.has(String(p.event.type))) ended.add(p.streamId);
      return true;
    });
  }

  /**
   * One multi-row INSERT, each stream's events numbered after that stream's last seq, in batch
   * order, then the writes joined to the stored events, in one transaction.
   * @returns per event of `batch`: its seq, or null when refused (`fenced`: its fence no longer
   *   holds the lease; else its stream's terminal event was stored before).
   */
  private async insertBatch(batch: Pending<E>[], createdAt: string): Promise<Outcome[]> {
    const params: InsertParams = [
      batch.map((p) => p.streamId),
      batch.map((_, i) => i),
      batch.map((p) => String(p.event.type)),
      batch.map((p) => p.json),
      createdAt,
      [...this.closing],
      batch.map((p) => p.fence?.owner ?? null),
      batch.map((p) => p.fence?.epoch ?? null),
    ];
    const joined = batch.some((p) => p.joined?.length);
    for (let attempt = 0; ; attempt++) {
      try {
        if (!joined) return await insertRows(this.db, params);
        // The events first, then the writes joined to each stored one, each in its own savepoint
        // (a write joined to a refused event is refused with it): one commit for all.
        const failed = new Map<JoinedWrite, unknown>();
        const outcomes = await this.db.transaction(async (tx) => {
          failed.clear();
          const stored = await insertRows(tx, params);
          for (const [i, p] of batch.entries()) {
            for (const j of p.joined ?? []) {
              if (stored[i].seq === null) continue; // rejected with its event by the caller
              await tx.query('SAVEPOINT joined_write');
              try {
                await j.write(tx);
                await tx.query('RELEASE SAVEPOINT joined_write');
              } catch (err) {
                if ((err as { code?: string }).code === UNIQUE_VIOLATION) throw err;
                await tx.query('ROLLBACK TO SAVEPOINT joined_write');
                failed.set(j, err);
              }
            }
          }
          return stored;
        });
        for (const [i, p] of batch.entries()) {
          if (outcomes[i].seq === null) continue;
          for (const j of p.joined ?? []) {
            if (failed.has(j)) j.reject(failed.get(j));
            else j.resolve();
          }
          p.joined = undefined;
        }
        return outcomes;
      } catch (err) {
        const code = (err as { code?: string }).code;
        if ((code !== UNIQUE_VIOLATION && code !== DEADLOCK_DETECTED) || attempt >= MAX_RETRIES) throw err;
      }
    }
  }

  async read(streamId: string, afterSeq: number, limit = 1000): Promise<LoggedEvent<E>[]> {
    const { rows } = await this.db.query<Row>(
      'SELECT stream_id, seq, data, created_at FROM event_log WHERE stream_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      [streamId, afterSeq, limit],
    );
    return rows.map(toLogged<E>);
  }

  async lastSeq(streamId: string): Promise<number> {
    const { rows } = await this.db.query<{ seq: number | null }>('SELECT MAX(seq) AS seq FROM event_log WHERE stream_id = $1', [streamId]);
    return rows[0].seq ?? 0;
  }

  /**
   * The last stored seq of each of `streamIds` that has events, in one statement (streams without
   * events are absent from the map). For the notifier's safety poll.
   */
  async lastSeqs(streamIds: readonly string[]): Promise<Map<string, number>> {
    if (streamIds.length === 0) return new Map();
    const { rows } = await this.db.query<{ stream_id: string; seq: number }>(
      'SELECT stream_id, MAX(seq) AS seq FROM event_log WHERE stream_id = ANY($1::text[]) GROUP BY stream_id',
      [[...streamIds]],
    );
    return new Map(rows.map((r) => [r.stream_id, r.seq]));
  }

  async last(streamId: string): Promise<LoggedEvent<E> | undefined> {
    const { rows } = await this.db.query<Row>(
      'SELECT stream_id, seq, data, created_at FROM event_log WHERE stream_id = $1 ORDER BY seq DESC LIMIT 1',
      [streamId],
    );
    return rows[0] ? toLogged<E>(rows[0]) : undefined;
  }
}

function toLogged<E>(row: Row): LoggedEvent<E & { type: string }> {
  return { streamId: row.stream_id, seq: row.seq, createdAt: row.created_at, event: JSON.parse(row.data) };
}

/** Stream ids, batch positions, types, JSON data, created_at, terminal types, fence owners and epochs (null: unfenced). */
type InsertParams = [string[], number[], string[], string[], string, string[], (string | null)[], (number | null)[]];

/** What became of one event of a batch. */
interface Outcome {
  /** Its seq; null when refused. */
  seq: number | null;
  /** Refused because its fence no longer holds the lease (else, when refused: its stream had ended). */
  fenced: boolean;
}

/**
 * The batch INSERT: each stream's accepted events numbered after that stream's last seq, in batch
 * order. Refused: every event of a stream whose last stored event is terminal, and a fenced event
 * whose turn's row (locked `FOR SHARE` until the commit, so a claim cannot pass in between) no
 * longer shows its owner and claim epoch (src/store/lease-fence.ts).
 * @returns per batch position, its seq or why it was refused.
 */
async function insertRows(db: PgQueryable, params: InsertParams): Promise<Outcome[]> {
  const { rows } = await db.query<{ i: number; seq: number | null; closed: boolean; fenced: boolean }>(
    `WITH v AS (SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $7::text[], $8::bigint[]) AS v(stream_id, i, type, data, owner, epoch)),
          held AS MATERIALIZED (SELECT t.id, t.owner, t.lease_epoch FROM turns t WHERE t.id IN (SELECT stream_id FROM v WHERE owner IS NOT NULL) ORDER BY t.id FOR SHARE),
          m AS (SELECT s.stream_id, COALESCE(l.seq, 0) AS last, COALESCE(l.type = ANY($6::text[]), false) AS closed
                FROM (SELECT DISTINCT stream_id FROM v) s
                LEFT JOIN LATERAL (SELECT e.seq, e.type FROM event_log e WHERE e.stream_id = s.stream_id ORDER BY e.seq DESC LIMIT 1) l ON true),
          f AS (SELECT v.i, v.owner IS NOT NULL AND NOT EXISTS (SELECT 1 FROM held h WHERE h.id = v.stream_id AND h.owner = v.owner AND h.lease_epoch = v.epoch) AS fenced FROM v),
          ok AS (SELECT v.i, v.stream_id, v.type, v.data, m.last + row_number() OVER (PARTITION BY v.stream_id ORDER BY v.i) AS seq
                 FROM v JOIN m USING (stream_id) JOIN f USING (i)
                 WHERE NOT m.closed AND NOT f.fenced),
          ins AS (INSERT INTO event_log (stream_id, seq, type, data, created_at) SELECT stream_id, seq, type, data, $5 FROM ok)
     SELECT v.i, ok.seq, m.closed, f.fenced FROM v JOIN m USING (stream_id) JOIN f USING (i) LEFT JOIN ok USING (i) ORDER BY v.i`,
    params,
  );
  return rows.map((r) => ({ seq: r.seq, fenced: r.fenced }));
}
