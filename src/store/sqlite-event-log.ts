/**
 * SQLite implementation of {@link EventLog}: table `event_log(stream_id, seq, type, data,
 * created_at)`, primary key (stream_id, seq). Stores only; wake-ups are an EventNotifier's job.
 * One table serves every stream kind; each kind gets its own typed instance.
 * An event with fields JSON cannot represent (circular, BigInt, too deep) is still stored, with
 * those fields replaced by `"[unserializable: <reason>]"` (src/store/safe-json.ts).
 *
 * Batching: a commit costs far more than an insert (tens of µs each, the WAL write), so appends
 * are not committed one by one. `append` numbers the event at once from the stream's next seq,
 * kept in memory (a stream has one writer, its owner: the turn's runner, the workflow's driver),
 * and queues it; everything queued is written in ONE transaction at the end of the current
 * event-loop turn (`setImmediate`), or at once by {@link SqliteEventLog.flush}, by any read of
 * this log, or when {@link MAX_BATCH} events are queued. `append` resolves only after that
 * commit, so the port's contract holds unchanged: resolved = durably stored, seq gapless and in
 * append order per stream. Should another writer have appended to a stream meanwhile (another
 * connection on the same file), the primary key refuses the batch; the affected streams' seqs
 * are read from the table again, the queued events renumbered in order and written again. (The
 * service holds its database exclusively, src/store/database.ts, so in the service this cannot
 * happen and the seq {@link SqliteEventLog.appendQueued} gives out at once is final.)
 *
 * Write-behind: `appendQueued` returns the seq at once and stores the event with the batch,
 * for writers that need not wait (a turn's runner waits only where it must: before a tool runs,
 * before a turn ends). Other stores on the same database join a batch with
 * {@link SqliteEventLog.joinBatch} — a turn's checkpoint is committed together with the events
 * around it, one commit instead of one each.
 */
import type { Database } from './database.js';
import type { EventLog, LoggedEvent, QueuedAppend } from './event-log.js';
import { isoNow } from './iso-now.js';
import { safeStringify } from './safe-json.js';

interface Row {
  stream_id: string;
  seq: number;
  data: string;
  created_at: string;
}

interface Pending<E extends { type: string }> {
  kind: 'event';
  streamId: string;
  seq: number;
  type: string;
  json: string;
  event: E;
  replaced: boolean;
  createdAt: string;
  resolve: (logged: LoggedEvent<E>) => void;
  reject: (err: unknown) => void;
}

/** A write of another store joined to the next batch ({@link SqliteEventLog.joinBatch}). */
interface JoinedWrite {
  kind: 'write';
  write: () => void;
  /** The write is atomic by itself (one statement, or its own savepoint): no savepoint around it. */
  atomic: boolean;
  resolve: () => void;
  reject: (err: unknown) => void;
  error?: unknown;
}

/** Events queued before a batch is written at once instead of at the end of the loop turn. */
export const MAX_BATCH = 1000;
/** Streams whose next seq is kept in memory (least recently appended ones are forgotten, then read again). */
const MAX_STREAMS = 10_000;
const RENUMBER_RETRIES = 5;

export class SqliteEventLog<E extends { type: string } = { type: string }> implements EventLog<E> {
  private readonly insert;
  private readonly selectAfter;
  private readonly selectLast;
  private readonly selectMaxSeq;
  private readonly writeBatch;
  /** Last seq given out per stream (Map order = least recently appended first). */
  private readonly lastGiven = new Map<string, number>();
  private pending: (Pending<E> | JoinedWrite)[] = [];
  private scheduled: NodeJS.Immediate | undefined;

  constructor(private readonly db: Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS event_log (
      stream_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      type TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (stream_id, seq)
    ) WITHOUT ROWID`);
    this.insert = db.prepare('INSERT INTO event_log (stream_id, seq, type, data, created_at) VALUES (?, ?, ?, ?, ?)');
    this.selectAfter = db.prepare(
      'SELECT stream_id, seq, data, created_at FROM event_log WHERE stream_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    );
    this.selectLast = db.prepare(
      'SELECT stream_id, seq, data, created_at FROM event_log WHERE stream_id = ? ORDER BY seq DESC LIMIT 1',
    );
    this.selectMaxSeq = db.prepare('SELECT COALESCE(MAX(seq), 0) FROM event_log WHERE stream_id = ?').pluck();
    // A joined write runs in a savepoint of its own (a nested transaction): one that fails is
    // rolled back alone and reported to its caller, never costing the batch's events.
    const joined = db.transaction((w: JoinedWrite) => w.write());
    this.writeBatch = db.transaction((batch: (Pending<E> | JoinedWrite)[]) => {
      for (const p of batch) {
        if (p.kind === 'event') {
          this.insert.run(p.streamId, p.seq, p.type, p.json, p.createdAt);
          continue;
        }
        try {
          p.error = undefined;
          if (p.atomic) p.write();
          else joined(p);
        } catch (err) {
          p.error = err;
        }
      }
    });
  }

  append(streamId: string, event: E): Promise<LoggedEvent<E>> {
    return this.appendQueued(streamId, event).stored;
  }

  /** {@link EventLog.appendQueued}: numbered now, stored with this log's next batch. */
  appendQueued(streamId: string, event: E): QueuedAppend<E> {
    // Never lose an event to serialization: unserializable fields become markers (safe-json.ts),
    // and readers get the stored form, so stored and streamed events stay equal.
    const { json, replaced } = safeStringify(event);
    const seq = this.nextSeq(streamId);
    const stored = new Promise<LoggedEvent<E>>((resolve, reject) => {
      this.pending.push({ kind: 'event', streamId, seq, type: String(event.type), json, event, replaced, createdAt: isoNow(), resolve, reject });
      this.schedule();
    });
    return { seq, stored };
  }

  /**
   * Run `write` (synchronous statements of another store on the same database, e.g. a turn
   * checkpoint) inside this log's next batch transaction, in order with the events queued around
   * it, so both become durable in one commit. Joining never flushes by itself (even past the batch
   * size), so an event appended right after, in the same synchronous step, is in that same
   * transaction. Resolves after that commit; rejects with what `write` threw (its statements are
   * rolled back alone; the batch's events are still stored). With `atomic`, the caller says
   * `write` is atomic by itself — a single statement (SQLite undoes a failed statement alone) or
   * one wrapped in its own `db.transaction` — and it runs without a savepoint of this log's (two
   * statements fewer a write).
   */
  joinBatch(write: () => void, options: { atomic?: boolean } = {}): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ kind: 'write', write, atomic: options.atomic === true, resolve, reject });
      this.scheduled ??= setImmediate(() => this.flush());
    });
  }

  /** {@link EventLog.flushQueued}: {@link SqliteEventLog.flush}. */
  flushQueued(): void {
    this.flush();
  }

  private schedule(): void {
    if (this.pending.length >= MAX_BATCH) this.flush();
    else this.scheduled ??= setImmediate(() => this.flush());
  }

  /**
   * Write every queued event now, in one transaction, and settle their appends (synchronous; the
   * resolutions run as microtasks afterwards). A no-op when nothing is queued.
   */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    for (let attempt = 0; ; attempt++) {
      try {
        this.writeBatch.immediate(batch);
        break;
      } catch (err) {
        if ((err as { code?: string }).code !== 'SQLITE_CONSTRAINT_PRIMARYKEY' || attempt >= RENUMBER_RETRIES) {
          for (const p of batch) if (p.kind === 'event') this.lastGiven.delete(p.streamId);
          for (const p of batch) p.reject(err);
          return;
        }
        this.renumber(batch.filter((p): p is Pending<E> => p.kind === 'event'));
      }
    }
    for (const p of batch) {
      if (p.kind === 'write') {
        if (p.error === undefined) p.resolve();
        else p.reject(p.error);
        continue;
      }
      p.resolve({ streamId: p.streamId, seq: p.seq, createdAt: p.createdAt, event: p.replaced ? (JSON.parse(p.json) as E) : p.event, json: p.json });
    }
  }

  async read(streamId: string, afterSeq: number, limit = 1000): Promise<LoggedEvent<E>[]> {
    this.flush();
    return (this.selectAfter.all(streamId, afterSeq, limit) as Row[]).map(toLogged<E>);
  }

  async lastSeq(streamId: string): Promise<number> {
    // The last seq given out is known without writing the queue first (queued events count: they
    // are numbered and will be stored in order).
    const given = this.lastGiven.get(streamId);
    if (given !== undefined) return given;
    return (await this.last(streamId))?.seq ?? 0;
  }

  async last(streamId: string): Promise<LoggedEvent<E> | undefined> {
    this.flush();
    const row = this.selectLast.get(streamId) as Row | undefined;
    return row ? toLogged<E>(row) : undefined;
  }

  private nextSeq(streamId: string): number {
    const last = this.lastGiven.get(streamId) ?? (this.selectMaxSeq.get(streamId) as number);
    this.lastGiven.delete(streamId); // re-insert: most recently appended last
    this.lastGiven.set(streamId, last + 1);
    if (this.lastGiven.size > MAX_STREAMS) this.lastGiven.delete(this.lastGiven.keys().next().value!);
    return last + 1;
  }

  /** Another writer took some of the batch's seqs: number the batch after what is stored now, in order. */
  private renumber(batch: Pending<E>[]): void {
    const last = new Map<string, number>();
    for (const p of batch) {
      const prev = last.get(p.streamId) ?? (this.selectMaxSeq.get(p.streamId) as number);
      p.seq = prev + 1;
      last.set(p.streamId, p.seq);
    }
    for (const [streamId, seq] of last) {
      this.lastGiven.delete(streamId);
      this.lastGiven.set(streamId, seq);
    }
  }
}

function toLogged<E extends { type: string }>(row: Row): LoggedEvent<E> {
  return { streamId: row.stream_id, seq: row.seq, createdAt: row.created_at, event: JSON.parse(row.data), json: row.data };
}
