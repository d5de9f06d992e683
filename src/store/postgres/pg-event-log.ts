/**
 * The event log on Postgres (table `event_log(stream_id, seq, type, data, created_at)`, migration 4).
 * Stores only; wake-ups are an EventNotifier's job (./pg-notifier.ts).
 *
 * Batching: appends to one stream made while that stream's previous INSERT is in flight wait and
 * go together in ONE multi-row INSERT, so a fast producer costs one round trip per batch, not per
 * event. Per-stream `seq` stays gapless and in append order: one statement numbers the batch as
 * `max(seq) + 1 …` of the stream; when another instance appended to the same stream at the same
 * moment, the primary key refuses one batch, which is numbered again and retried.
 * Unserializable fields are replaced by markers (src/store/safe-json.ts), as in SQLite.
 */
import type { EventLog, LoggedEvent } from '../event-log.js';
import { safeStringify } from '../safe-json.js';
import type { PgDatabase } from './pg-database.js';

interface Pending<E extends { type: string }> {
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
const MAX_BATCH = 500;
const MAX_RETRIES = 20;

export class PgEventLog<E extends { type: string } = { type: string }> implements EventLog<E> {
  /** Streams with an INSERT in flight → the appends waiting for the next batch. */
  private readonly waiting = new Map<string, Pending<E>[]>();

  constructor(private readonly db: PgDatabase) {}

  append(streamId: string, event: E): Promise<LoggedEvent<E>> {
    const { json, replaced } = safeStringify(event);
    return new Promise<LoggedEvent<E>>((resolve, reject) => {
      const p: Pending<E> = { event, json, replaced, resolve, reject };
      const queue = this.waiting.get(streamId);
      if (queue) queue.push(p);
      else {
        this.waiting.set(streamId, []);
        void this.flush(streamId, [p]);
      }
    });
  }

  /** Insert `batch`, then whatever queued meanwhile, until the stream is idle. */
  private async flush(streamId: string, batch: Pending<E>[]): Promise<void> {
    for (;;) {
      try {
        const created = new Date().toISOString();
        const first = await this.insertBatch(streamId, batch, created);
        batch.forEach((p, i) =>
          p.resolve({ streamId, seq: first + i, createdAt: created, event: p.replaced ? (JSON.parse(p.json) as E) : p.event }),
        );
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
      const queue = this.waiting.get(streamId)!;
      if (queue.length === 0) {
        this.waiting.delete(streamId);
        return;
      }
      batch = queue.splice(0, MAX_BATCH);
    }
  }

  /** One multi-row INSERT numbered after the stream's last seq. @returns the first seq. */
  private async insertBatch(streamId: string, batch: Pending<E>[], createdAt: string): Promise<number> {
    const types = batch.map((p) => String(p.event.type));
    const data = batch.map((p) => p.json);
    for (let attempt = 0; ; attempt++) {
      try {
        const { rows } = await this.db.query<{ first: number }>(
          `WITH m AS (SELECT COALESCE(MAX(seq), 0) AS last FROM event_log WHERE stream_id = $1),
                ins AS (
                  INSERT INTO event_log (stream_id, seq, type, data, created_at)
                  SELECT $1, m.last + v.ord, v.type, v.data, $4
                  FROM m, unnest($2::text[], $3::text[]) WITH ORDINALITY AS v(type, data, ord)
                  RETURNING seq)
           SELECT MIN(seq) AS first FROM ins`,
          [streamId, types, data, createdAt],
        );
        return rows[0].first;
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
