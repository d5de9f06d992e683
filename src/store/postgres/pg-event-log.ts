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
 */
import type { EventLog, LoggedEvent } from '../event-log.js';
import { safeStringify } from '../safe-json.js';
import type { PgDatabase } from './pg-database.js';

interface Pending<E extends { type: string }> {
  streamId: string;
  event: E;
  json: string;
  replaced: boolean;
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

  constructor(private readonly db: PgDatabase) {}

  append(streamId: string, event: E): Promise<LoggedEvent<E>> {
    const { json, replaced } = safeStringify(event);
    return new Promise<LoggedEvent<E>>((resolve, reject) => {
      const lane = this.lanes[laneOf(streamId)];
      lane.waiting.push({ streamId, event, json, replaced, resolve, reject });
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
    for (let attempt = 0; ; attempt++) {
      try {
        const { rows } = await this.db.query<{ stream_id: string; first: number }>(
          `WITH v AS (SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[]) AS v(stream_id, ord, type, data)),
                m AS (SELECT s.stream_id, COALESCE((SELECT MAX(e.seq) FROM event_log e WHERE e.stream_id = s.stream_id), 0) AS last
                      FROM (SELECT DISTINCT stream_id FROM v) s),
                ins AS (
                  INSERT INTO event_log (stream_id, seq, type, data, created_at)
                  SELECT v.stream_id, m.last + v.ord, v.type, v.data, $5 FROM v JOIN m USING (stream_id)
                  RETURNING stream_id, seq)
           SELECT stream_id, MIN(seq) AS first FROM ins GROUP BY stream_id`,
          [ids, ords, types, data, createdAt],
        );
        return new Map(rows.map((r) => [r.stream_id, r.first]));
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
