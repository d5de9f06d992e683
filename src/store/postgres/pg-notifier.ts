/**
 * The {@link EventNotifier} for several instances on one Postgres: wake-ups travel as `NOTIFY`,
 * events themselves are read from the log (https://www.postgresql.org/docs/current/sql-notify.html).
 * - `notify(logged)` (called after the event was STORED) delivers to this instance's listeners at
 *   once and sends one `NOTIFY turn_service_events, '<stream id> <seq>'` per stream per tick
 *   (appends of one tick coalesce into one wake-up carrying the last seq).
 * - One dedicated `LISTEN` connection per instance: a wake-up for a stream with local listeners
 *   reads the stream from the log after the last seq delivered and hands the events over in order.
 * - While the LISTEN connection is down (database restart, network), every stream with local
 *   listeners is read every {@link POLL_MS} ms instead, and the connection is re-opened; no event
 *   is missed either way. Listeners may see an event late, never twice from this notifier.
 */
import pg from 'pg';
import type { EventListener, EventLog, EventNotifier, LoggedEvent } from '../event-log.js';

export const NOTIFY_CHANNEL = 'turn_service_events';
/** Poll interval while LISTEN is down, and reconnect delay, ms. */
export const POLL_MS = 500;

interface Stream<E extends { type: string }> {
  listeners: Set<EventListener<E>>;
  /** Highest seq delivered to this stream's listeners. */
  delivered: number;
  reading: boolean;
  readAgain: boolean;
}

export interface PgNotifierOptions {
  /** Connection URL for the LISTEN connection (same database as the log). */
  url: string;
  /** Sends NOTIFY (the pool). */
  send: (sql: string, params: unknown[]) => Promise<unknown>;
  log: EventLog<{ type: string }>;
  onError?: (err: unknown, what: string) => void;
}

export class PgEventNotifier<E extends { type: string } = { type: string }> implements EventNotifier<E> {
  private readonly streams = new Map<string, Stream<E>>();
  private readonly outgoing = new Map<string, number>();
  private flushScheduled = false;
  private client: pg.Client | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** `ok` while the LISTEN connection is up, else `reconnecting`. */
  listenState: 'ok' | 'reconnecting' = 'reconnecting';

  constructor(private readonly options: PgNotifierOptions) {}

  /** Open the LISTEN connection (retries in the background when it fails). */
  async start(): Promise<void> {
    await this.connect();
  }

  notify(logged: LoggedEvent<E>): void {
    this.deliver(logged.streamId, [logged]);
    this.outgoing.set(logged.streamId, Math.max(this.outgoing.get(logged.streamId) ?? 0, logged.seq));
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => void this.flushOutgoing());
    }
  }

  subscribe(streamId: string, listener: EventListener<E>): () => void {
    let s = this.streams.get(streamId);
    if (!s) this.streams.set(streamId, (s = { listeners: new Set(), delivered: 0, reading: false, readAgain: false }));
    s.listeners.add(listener);
    return () => {
      const cur = this.streams.get(streamId);
      if (!cur) return;
      cur.listeners.delete(listener);
      if (cur.listeners.size === 0) this.streams.delete(streamId);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    await this.client?.end().catch(() => undefined);
  }

  private async flushOutgoing(): Promise<void> {
    this.flushScheduled = false;
    const batch = [...this.outgoing];
    this.outgoing.clear();
    for (const [streamId, seq] of batch) {
      await this.options.send('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, `${streamId} ${seq}`]).catch((err) => this.options.onError?.(err, 'notify'));
    }
  }

  /** Hand `events` (ascending) to the stream's listeners, skipping what was delivered. */
  private deliver(streamId: string, events: LoggedEvent<E>[]): void {
    const s = this.streams.get(streamId);
    if (!s) return;
    for (const e of events) {
      if (e.seq <= s.delivered) continue;
      s.delivered = e.seq;
      for (const l of [...s.listeners]) {
        try {
          l(e);
        } catch {
          s.listeners.delete(l);
        }
      }
    }
  }

  /** Read a stream from the log after what was delivered, and deliver (one reader per stream). */
  private async catchUp(streamId: string, notifiedSeq?: number): Promise<void> {
    const s = this.streams.get(streamId);
    if (!s) return;
    // A stream followed since just now: start at the notified event (readers fill older gaps from the log).
    if (s.delivered === 0 && notifiedSeq !== undefined) s.delivered = notifiedSeq - 1;
    if (s.reading) {
      s.readAgain = true;
      return;
    }
    s.reading = true;
    try {
      do {
        s.readAgain = false;
        if (s.delivered === 0) s.delivered = Math.max(0, (await this.options.log.lastSeq(streamId)) - 1);
        const events = (await this.options.log.read(streamId, s.delivered)) as LoggedEvent<E>[];
        this.deliver(streamId, events);
      } while (s.readAgain);
    } catch (err) {
      this.options.onError?.(err, 'catch-up read');
    } finally {
      s.reading = false;
    }
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.options.url, application_name: 'turn-service-listen' });
    client.on('notification', (msg) => {
      const [streamId, seq] = (msg.payload ?? '').split(' ');
      const s = this.streams.get(streamId);
      if (s && Number(seq) > s.delivered) void this.catchUp(streamId, Number(seq));
    });
    const lost = (err?: unknown) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.listenState = 'reconnecting';
      if (err) this.options.onError?.(err, 'listen connection');
      this.startPolling();
      setTimeout(() => void this.connect(), POLL_MS).unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
      this.client = client;
      this.listenState = 'ok';
      this.stopPolling();
      // Anything stored while LISTEN was down: read once now.
      for (const id of this.streams.keys()) void this.catchUp(id);
    } catch (err) {
      await client.end().catch(() => undefined);
      this.client = client; // so `lost` handles it
      lost(err);
    }
  }

  private startPolling(): void {
    if (this.pollTimer || this.closed) return;
    this.pollTimer = setInterval(() => {
      for (const id of this.streams.keys()) void this.catchUp(id);
    }, POLL_MS);
    this.pollTimer.unref();
  }

  private stopPolling(): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = undefined;
  }
}
