/**
 * The {@link EventNotifier} for several instances on one Postgres: wake-ups travel as `NOTIFY`,
 * events themselves are read from the log (https://www.postgresql.org/docs/current/sql-notify.html).
 * - `notify(logged)` (called after the event was STORED) delivers to this instance's listeners at
 *   once; the wake-ups of one tick go out in ONE statement, one `NOTIFY turn_service_events,
 *   '<stream id> <first seq> <last seq>'` per stream (appends of a tick coalesce).
 * - One dedicated `LISTEN` connection per instance: a wake-up for a stream with local listeners
 *   reads the stream from the log after the last seq delivered and hands the events over in order.
 * - While the LISTEN connection is down (database restart, network), every stream with local
 *   listeners is read every {@link POLL_MS} ms instead, and the connection is re-opened; no event
 *   is missed either way. Listeners may see an event late, never twice from this notifier.
 * - `broadcast(topic)` (no event stored: a wake-up such as "turn X was asked to cancel") reaches
 *   this instance's `onBroadcast` listeners at once and the others' as `NOTIFY … '!<topic>'` (the
 *   sender hears its own NOTIFY too, so a topic may arrive twice); while LISTEN is down it is lost.
 */
import pg from 'pg';
import type { EventListener, EventLog, EventNotifier, LoggedEvent } from '../event-log.js';

export const NOTIFY_CHANNEL = 'turn_service_events';
/** Poll interval while LISTEN is down, and reconnect delay, ms. */
export const POLL_MS = 500;
/** Events read per query when catching a stream up. */
const READ_PAGE = 1000;

interface Stream<E extends { type: string }> {
  listeners: Set<EventListener<E>>;
  /** Highest seq delivered to this stream's listeners (starts at the stream's last seq when followed). */
  delivered: number;
  /** Resolves once `delivered` holds the stream's last seq at the time it was first followed. */
  ready: Promise<void>;
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
  private readonly outgoing = new Map<string, { first: number; last: number }>();
  private readonly topics = new Set<(topic: string) => void>();
  private flushScheduled = false;
  private sending: Promise<void> = Promise.resolve();
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
    const o = this.outgoing.get(logged.streamId);
    if (o) o.last = Math.max(o.last, logged.seq);
    else this.outgoing.set(logged.streamId, { first: logged.seq, last: logged.seq });
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // One flush at a time: wake-ups of one stream must arrive in seq order.
      setImmediate(() => (this.sending = this.sending.then(() => this.flushOutgoing())));
    }
  }

  broadcast(topic: string): void {
    this.hear(topic);
    void this.options.send('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, `!${topic}`]).catch((err) => this.options.onError?.(err, 'notify'));
  }

  onBroadcast(listener: (topic: string) => void): () => void {
    this.topics.add(listener);
    return () => void this.topics.delete(listener);
  }

  private hear(topic: string): void {
    for (const l of [...this.topics]) {
      try {
        l(topic);
      } catch {
        this.topics.delete(l);
      }
    }
  }

  subscribe(streamId: string, listener: EventListener<E>): () => void {
    let s = this.streams.get(streamId);
    if (!s) {
      const fresh: Stream<E> = { listeners: new Set(), delivered: 0, ready: Promise.resolve(), reading: false, readAgain: false };
      // Events stored before the stream was followed are the reader's to take from the log (it
      // subscribes first, then reads); wake-ups deliver what comes after.
      fresh.ready = this.options.log.lastSeq(streamId).then(
        (n) => void (fresh.delivered = Math.max(fresh.delivered, n)),
        (err) => this.options.onError?.(err, 'reading a stream position'),
      );
      this.streams.set(streamId, (s = fresh));
    }
    s.listeners.add(listener);
    return () => {
      const cur = this.streams.get(streamId);
      if (!cur) return;
      cur.listeners.delete(listener);
      if (cur.listeners.size === 0) this.streams.delete(streamId);
    };
  }

  /** Resolves once a followed stream's starting position is known (tests, benchmarks). */
  async following(streamId: string): Promise<void> {
    await this.streams.get(streamId)?.ready;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    await this.client?.end().catch(() => undefined);
  }

  private async flushOutgoing(): Promise<void> {
    this.flushScheduled = false;
    const payloads = [...this.outgoing].map(([streamId, o]) => `${streamId} ${o.first} ${o.last}`);
    this.outgoing.clear();
    if (payloads.length === 0) return;
    await this.options
      .send('SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p', [NOTIFY_CHANNEL, payloads])
      .catch((err) => this.options.onError?.(err, 'notify'));
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
  private async catchUp(streamId: string): Promise<void> {
    const s = this.streams.get(streamId);
    if (!s) return;
    if (s.reading) {
      s.readAgain = true;
      return;
    }
    s.reading = true;
    try {
      await s.ready;
      do {
        s.readAgain = false;
        let page: LoggedEvent<E>[];
        do {
          page = (await this.options.log.read(streamId, s.delivered, READ_PAGE)) as LoggedEvent<E>[];
          this.deliver(streamId, page);
        } while (page.length === READ_PAGE && this.streams.has(streamId));
      } while (s.readAgain);
    } catch (err) {
      this.options.onError?.(err, 'catch-up read');
    } finally {
      s.reading = false;
    }
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    // Keep-alive: a LISTEN connection whose peer vanished without a reset is noticed (and re-opened).
    const client = new pg.Client({ connectionString: this.options.url, application_name: 'turn-service-listen', keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    client.on('notification', (msg) => {
      if (msg.payload?.startsWith('!')) return this.hear(msg.payload.slice(1));
      const [streamId, , last] = (msg.payload ?? '').split(' ');
      const s = this.streams.get(streamId);
      if (s && Number(last) > s.delivered) void this.catchUp(streamId);
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
