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
 * Joined writes ({@link PgEventLog.joinNext}): another store's statements run in the same
 * transaction as the next event of one stream — a turn's finished record with its terminal event,
 * so no crash leaves one without the other.
 */
import type { EventLog, LoggedEvent } from '../event-log.js';
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
const MAX_BATCH = 1000;
/** INSERTs in flight at most (one per lane). */
const LANES = 2;

interface Lane<E extends { type: string }> {
  waiting: Pending<E>[];
  flushing: boolean;
}

/** The lane of a stream (FNV-1a of its id). */
function laneOf(streamId: string): number {
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

  constructor(private readonly db: PgDatabase) {}

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

  append(streamId: string, event: E): Promise<LoggedEvent<E>> {
    const { json, replaced } = safeStringify(event);
    const joined = this.joined.get(streamId);
    if (joined) this.joined.delete(streamId);
    return new Promise<LoggedEvent<E>>((resolve, reject) => {
      const lane = this.lanes[laneOf(streamId)];
      lane.waiting.push({ streamId, event, json, replaced, joined, resolve, reject });
      if (!lane.flushing) {
        lane.flushing = true;
        void this.flush(lane);
      }
    });
  }

  /** Insert what waits in `lane`, batch after batch, until nothing does. */
  private async flush(lane: Lane<E>): Promise<void> {
    while (lane.waiting.length > 0) {
      const batch = lane.waiting.splice(0, MAX_BATCH);
      try {
        const created = new Date().toISOString();
        const first = await this.insertBatch(batch, created);
        const next = new Map(first);
        for (const p of batch) {
          const seq = next.get(p.streamId)!;
          next.set(p.streamId, seq + 1);
          p.resolve({ streamId: p.streamId, seq, createdAt: created, event: p.replaced ? (JSON.parse(p.json) as E) : p.event });
        }
      } catch (err) {
        for (const p of batch) p.reject(err);
        for (const p of batch) for (const j of p.joined ?? []) j.reject(err);
      }
    }
    lane.flushing = false;
  }

  /**
   * One multi-row INSERT, each stream's events numbered after that stream's last seq, in batch
   * order. @returns the first seq given to each stream.
   */
  private async insertBatch(batch: Pending<E>[], createdAt: string): Promise<Map<string, number>> {
    const count = new Map<string, number>();
    const ids: string[] = [];
    const ords: number[] = [];
    for (const p of batch) {
      const n = (count.get(p.streamId) ?? 0) + 1;
      count.set(p.streamId, n);
      ids.push(p.streamId);
      ords.push(n);
    }
    const types = batch.map((p) => String(p.event.type));
    const data = batch.map((p) => p.json);
    const joined = batch.flatMap((p) => p.joined ?? []);
    for (let attempt = 0; ; attempt++) {
      try {
        if (joined.length === 0) return await insertRows(this.db, [ids, ords, types, data, createdAt]);
        // Joined writes first, each in its own savepoint, then the events: one commit for all.
        const failed = new Map<JoinedWrite, unknown>();
        const first = await this.db.transaction(async (tx) => {
          for (const j of joined) {
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
          return insertRows(tx, [ids, ords, types, data, createdAt]);
        });
        for (const j of joined) {
          if (failed.has(j)) j.reject(failed.get(j));
          else j.resolve();
        }
        return first;
      } catch (err) {
        if ((err as { code?: string }).code !== UNIQUE_VIOLATION || attempt >= MAX_RETRIES) throw err;
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

/**
 * The batch INSERT: each stream's events numbered after that stream's last seq, in batch order.
 * `params`: stream ids, per-stream ordinals (1-based), types, JSON data, created_at.
 * @returns the first seq given to each stream.
 */
async function insertRows(db: PgQueryable, params: [string[], number[], string[], string[], string]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ stream_id: string; first: number }>(
    `WITH v AS (SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[]) AS v(stream_id, ord, type, data)),
          m AS (SELECT s.stream_id, COALESCE((SELECT MAX(e.seq) FROM event_log e WHERE e.stream_id = s.stream_id), 0) AS last
                FROM (SELECT DISTINCT stream_id FROM v) s),
          ins AS (
            INSERT INTO event_log (stream_id, seq, type, data, created_at)
            SELECT v.stream_id, m.last + v.ord, v.type, v.data, $5 FROM v JOIN m USING (stream_id)
            RETURNING stream_id, seq)
     SELECT stream_id, MIN(seq) AS first FROM ins GROUP BY stream_id`,
    params,
  );
  return new Map(rows.map((r) => [r.stream_id, r.first]));
}
