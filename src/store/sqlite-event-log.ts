/**
 * SQLite implementation of {@link EventLog}: table `event_log(stream_id, seq, type, data,
 * created_at)`, primary key (stream_id, seq). Stores only; wake-ups are an EventNotifier's job.
 * One table serves every stream kind; each kind gets its own typed instance.
 * An event with fields JSON cannot represent (circular, BigInt, too deep) is still stored, with
 * those fields replaced by `"[unserializable: <reason>]"` (src/store/safe-json.ts).
 */
import type { Database } from './database.js';
import type { EventLog, LoggedEvent } from './event-log.js';
import { safeStringify } from './safe-json.js';

interface Row {
  stream_id: string;
  seq: number;
  data: string;
  created_at: string;
}

export class SqliteEventLog<E extends { type: string } = { type: string }> implements EventLog<E> {
  private readonly insert;
  private readonly selectAfter;
  private readonly selectLast;

  constructor(private readonly db: Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS event_log (
      stream_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      type TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (stream_id, seq)
    ) WITHOUT ROWID`);
    this.insert = db.prepare(
      `INSERT INTO event_log (stream_id, seq, type, data, created_at)
       VALUES (?, COALESCE((SELECT MAX(seq) FROM event_log WHERE stream_id = ?), 0) + 1, ?, ?, ?)
       RETURNING seq`,
    );
    this.selectAfter = db.prepare(
      'SELECT stream_id, seq, data, created_at FROM event_log WHERE stream_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    );
    this.selectLast = db.prepare(
      'SELECT stream_id, seq, data, created_at FROM event_log WHERE stream_id = ? ORDER BY seq DESC LIMIT 1',
    );
  }

  async append(streamId: string, event: E): Promise<LoggedEvent<E>> {
    return this.appendSync(streamId, event);
  }

  /** Synchronous append (SQLite only); same contract as {@link append}. */
  appendSync(streamId: string, event: E): LoggedEvent<E> {
    const createdAt = new Date().toISOString();
    // Never lose an event to serialization: unserializable fields become markers (safe-json.ts),
    // and readers get the stored form, so stored and streamed events stay equal.
    const { json, replaced } = safeStringify(event);
    const row = this.insert.get(streamId, streamId, String(event.type), json, createdAt) as { seq: number };
    const stored = replaced ? (JSON.parse(json) as E) : event;
    return { streamId, seq: row.seq, createdAt, event: stored };
  }

  async read(streamId: string, afterSeq: number, limit = 1000): Promise<LoggedEvent<E>[]> {
    return (this.selectAfter.all(streamId, afterSeq, limit) as Row[]).map(toLogged<E>);
  }

  async lastSeq(streamId: string): Promise<number> {
    return (await this.last(streamId))?.seq ?? 0;
  }

  async last(streamId: string): Promise<LoggedEvent<E> | undefined> {
    const row = this.selectLast.get(streamId) as Row | undefined;
    return row ? toLogged<E>(row) : undefined;
  }
}

function toLogged<E>(row: Row): LoggedEvent<E & { type: string }> {
  return { streamId: row.stream_id, seq: row.seq, createdAt: row.created_at, event: JSON.parse(row.data) };
}
