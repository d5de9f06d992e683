/**
 * The {@link EventNotifier} for several instances on one Postgres: wake-ups travel as `NOTIFY`,
 * events themselves are read from the log (https://www.postgresql.org/docs/current/sql-notify.html).
 * - `notify(logged)` (called after the event was STORED) delivers to this instance's listeners at
 *   once; the wake-ups of one tick go out in ONE statement, one `NOTIFY turn_service_events,
 *   '<stream id> <first seq> <last seq>'` per stream (appends of a tick coalesce).
 * - One dedicated `LISTEN` connection per instance ({@link PgListenConnection}, shared by the
 *   notifiers of the turn, workflow and job logs; a notifier given none opens its own): a wake-up
 *   for a stream with local listeners reads the stream from the log after the last seq delivered
 *   and hands the events over in order.
 * - While the LISTEN connection is down (database restart, network), every stream with local
 *   listeners is read every {@link POLL_MS} ms instead, and the connection is re-opened (after
 *   0.5 s, doubling to 30 s while it fails); no event is missed either way. Listeners may see an event late, never twice from this notifier.
 * - Failures while LISTEN is up are recovered too, so no stored event stays unseen for long once
 *   the database answers: a NOTIFY that failed is sent again (with later wake-ups of its streams,
 *   after {@link RETRY_MIN_MS} doubling to {@link RETRY_MAX_MS}); a catch-up read (or the read of
 *   a stream's starting position) that failed is tried again on the same backoff; and every
 *   {@link SAFETY_POLL_MS} ms one statement compares the followed streams' last stored seqs with
 *   what was delivered, catching up any stream behind — whatever was lost on the way (a NOTIFY
 *   the server never delivered, a LISTEN connection alive to the client but stuck).
 * - `broadcast(topic)` (no event stored: a wake-up such as "turn X was asked to cancel") reaches
 *   this instance's `onBroadcast` listeners at once and the others' as `NOTIFY … '!<topic>'` (the
 *   sender hears its own NOTIFY too, so a topic may arrive twice); while LISTEN is down it is lost.
 */
import type { EventListener, EventLog, EventNotifier, LoggedEvent } from '../event-log.js';
import { NOTIFY_CHANNEL, PgListenConnection } from './pg-listen.js';

export { NOTIFY_CHANNEL };
/** Poll interval while LISTEN is down, ms. */
export const POLL_MS = 500;
/** Events read per query when catching a stream up. */
const READ_PAGE = 1000;
/** First delay before a failed NOTIFY or catch-up read is tried again, ms (doubling per failure). */
export const RETRY_MIN_MS = 250;
/** Longest delay between tries of a failed NOTIFY or catch-up read, ms. */
export const RETRY_MAX_MS = 5000;
/** While LISTEN is up: how often the followed streams' positions are checked against the log, ms. */
export const SAFETY_POLL_MS = 5000;

/** The next delay after a failure that followed a delay of `ms` (0: none yet). */
const backoff = (ms: number) => Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, ms * 2));

interface Stream<E extends { type: string }> {
  listeners: Set<EventListener<E>>;
  /** Highest seq delivered to this stream's listeners (starts at the stream's last seq when followed). */
  delivered: number;
  /** Resolves once `delivered` holds the stream's last seq at the time it was first followed. */
  ready: Promise<void>;
  reading: boolean;
  readAgain: boolean;
  /** Delay of the last retry after a failed read (0 after a read that succeeded), ms. */
  retryMs: number;
  /** A retry of a failed read, when one is scheduled. */
  retry?: NodeJS.Timeout;
}

export interface PgNotifierOptions {
  /** Connection URL for the LISTEN connection (same database as the log). */
  url: string;
  /** Sends NOTIFY (the pool). */
  send: (sql: string, params: unknown[]) => Promise<unknown>;
  /**
   * The log the events are read from; with `lastSeqs` (the Postgres log has it) the safety poll
   * is one statement for all followed streams, else a catch-up read per stream.
   */
  log: EventLog<{ type: string }> & { lastSeqs?(streamIds: readonly string[]): Promise<Map<string, number>> };
  /**
   * Hears about failures, each retried on its own: `what` is `notify`, `catch-up read`, `reading a
   * stream position`, `safety poll` or `listen connection`.
   */
  onError?: (err: unknown, what: string) => void;
  /** Hears each success of what `onError` names (for logs that report a recovery once). */
  onRecovered?: (what: string) => void;
  /** The instance's shared LISTEN connection (not closed by this notifier); absent: one of its own. */
  listen?: PgListenConnection;
}

export class PgEventNotifier<E extends { type: string } = { type: string }> implements EventNotifier<E> {
  private readonly streams = new Map<string, Stream<E>>();
  private readonly outgoing = new Map<string, { first: number; last: number }>();
  private readonly topics = new Set<(topic: string) => void>();
  private flushScheduled = false;
  private sending: Promise<void> = Promise.resolve();
  private readonly listen: PgListenConnection;
  private readonly ownsListen: boolean;
  private removeSubscriber: (() => void) | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private safetyTimer: NodeJS.Timeout | undefined;
  private safetyPolling = false;
  /** Delay of the last retry of a failed NOTIFY (0 after one that went out), ms. */
  private notifyRetryMs = 0;
  private closed = false;
  constructor(private readonly options: PgNotifierOptions) {
    this.ownsListen = !options.listen;
    this.listen = options.listen ?? new PgListenConnection({ url: options.url, onError: options.onError, onRecovered: options.onRecovered });
  }

  /** `ok` while the LISTEN connection is up, else `reconnecting`. */
  get listenState(): 'ok' | 'reconnecting' {
    return this.listen.state;
  }

  /** Open the LISTEN connection (retries in the background when it fails) and start the safety poll. */
  async start(): Promise<void> {
    if (this.closed) return;
    if (!this.safetyTimer) {
      this.safetyTimer = setInterval(() => void this.safetyPoll(), SAFETY_POLL_MS);
      this.safetyTimer.unref();
    }
    this.removeSubscriber ??= this.listen.add({
      notification: (payload) => this.heard(payload),
      up: () => {
        this.stopPolling();
        // Anything stored while LISTEN was down: read once now.
        for (const id of this.streams.keys()) void this.catchUp(id);
      },
      down: () => this.startPolling(),
    });
    await this.listen.start();
    if (this.listen.state !== 'ok') this.startPolling();
  }

  /** A NOTIFY payload on the channel: a broadcast topic, or a wake-up of a stream followed here. */
  private heard(payload: string): void {
    if (payload.startsWith('!')) return this.hear(payload.slice(1));
    const [streamId, , last] = payload.split(' ');
    const s = this.streams.get(streamId);
    if (s && Number(last) > s.delivered) void this.catchUp(streamId);
  }

  notify(logged: LoggedEvent<E>): void {
    this.deliver(logged.streamId, [logged]);
    this.queueWakeUp(logged.streamId, logged.seq, logged.seq);
    this.scheduleFlush(0);
  }

  /** Add seqs `first…last` of a stream to the next NOTIFY. */
  private queueWakeUp(streamId: string, first: number, last: number): void {
    const o = this.outgoing.get(streamId);
    if (o) {
      o.first = Math.min(o.first, first);
      o.last = Math.max(o.last, last);
    } else this.outgoing.set(streamId, { first, last });
  }

  /** Send what is queued after `delayMs` (0: at the end of this tick), unless a send is already scheduled. */
  private scheduleFlush(delayMs: number): void {
    if (this.flushScheduled || this.closed) return;
    this.flushScheduled = true;
    // One flush at a time: wake-ups of one stream must arrive in seq order.
    const go = () => (this.sending = this.sending.then(() => this.flushOutgoing()));
    if (delayMs > 0) setTimeout(go, delayMs).unref();
    else setImmediate(go);
  }

  broadcast(topic: string): void {
    this.hear(topic);
    void this.options.send('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, `!${topic}`]).then(
      () => this.options.onRecovered?.('notify'),
      (err) => this.options.onError?.(err, 'notify'),
    );
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
      const fresh: Stream<E> = { listeners: new Set(), delivered: 0, ready: Promise.resolve(), reading: false, readAgain: false, retryMs: 0 };
      // Events stored before the stream was followed are the reader's to take from the log (it
      // subscribes first, then reads); wake-ups deliver what comes after.
      fresh.ready = this.startingPosition(streamId, fresh);
      this.streams.set(streamId, (s = fresh));
    }
    s.listeners.add(listener);
    return () => {
      const cur = this.streams.get(streamId);
      if (!cur) return;
      cur.listeners.delete(listener);
      if (cur.listeners.size === 0) {
        this.streams.delete(streamId);
        if (cur.retry) clearTimeout(cur.retry);
      }
    };
  }

  /**
   * Set `s.delivered` to the stream's last stored seq, reading it again (backoff) while that
   * fails, until the stream is no longer followed. Never rejects.
   */
  private async startingPosition(streamId: string, s: Stream<E>): Promise<void> {
    for (let delay = 0; ; ) {
      try {
        const n = await this.options.log.lastSeq(streamId);
        s.delivered = Math.max(s.delivered, n);
        this.options.onRecovered?.('reading a stream position');
        return;
      } catch (err) {
        this.options.onError?.(err, 'reading a stream position');
        if (this.closed || this.streams.get(streamId) !== s) return;
        delay = backoff(delay);
        await new Promise((r) => setTimeout(r, delay).unref());
        if (this.closed || this.streams.get(streamId) !== s) return;
      }
    }
  }

  /** Resolves once a followed stream's starting position is known (tests, benchmarks). */
  async following(streamId: string): Promise<void> {
    await this.streams.get(streamId)?.ready;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.safetyTimer) clearInterval(this.safetyTimer);
    for (const s of this.streams.values()) if (s.retry) clearTimeout(s.retry);
    this.removeSubscriber?.();
    if (this.ownsListen) await this.listen.close();
  }

  /** Send the queued wake-ups in one statement; when it fails, queue them again and retry later. */
  private async flushOutgoing(): Promise<void> {
    this.flushScheduled = false;
    const entries = [...this.outgoing];
    this.outgoing.clear();
    if (entries.length === 0) return;
    const payloads = entries.map(([streamId, o]) => `${streamId} ${o.first} ${o.last}`);
    try {
      await this.options.send('SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p', [NOTIFY_CHANNEL, payloads]);
      this.notifyRetryMs = 0;
      this.options.onRecovered?.('notify');
    } catch (err) {
      this.options.onError?.(err, 'notify');
      // The events are stored: other instances' readers still need the wake-up. Sent again with
      // whatever was notified meanwhile (one payload per stream, its seq range widened).
      for (const [streamId, o] of entries) this.queueWakeUp(streamId, o.first, o.last);
      this.notifyRetryMs = backoff(this.notifyRetryMs);
      this.scheduleFlush(this.notifyRetryMs);
    }
  }

  /**
   * While LISTEN is up: catch up every followed stream whose last stored seq is past what was
   * delivered (one statement with `log.lastSeqs`), so an event whose wake-up was lost is seen
   * within {@link SAFETY_POLL_MS}. While LISTEN is down the faster poll does this already.
   */
  private async safetyPoll(): Promise<void> {
    if (this.safetyPolling || this.listenState !== 'ok' || this.streams.size === 0) return;
    this.safetyPolling = true;
    try {
      const ids = [...this.streams.keys()];
      if (!this.options.log.lastSeqs) {
        for (const id of ids) void this.catchUp(id);
        return;
      }
      const last = await this.options.log.lastSeqs(ids);
      for (const id of ids) {
        const s = this.streams.get(id);
        if (s && (last.get(id) ?? 0) > s.delivered) void this.catchUp(id);
      }
      this.options.onRecovered?.('safety poll');
    } catch (err) {
      this.options.onError?.(err, 'safety poll');
    } finally {
      this.safetyPolling = false;
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
      s.retryMs = 0;
      this.options.onRecovered?.('catch-up read');
    } catch (err) {
      this.options.onError?.(err, 'catch-up read');
      // Nothing else may wake this stream (its NOTIFY came and went): read again after a while.
      if (!this.closed && this.streams.get(streamId) === s && !s.retry) {
        s.retryMs = backoff(s.retryMs);
        s.retry = setTimeout(() => {
          s.retry = undefined;
          if (this.streams.get(streamId) === s) void this.catchUp(streamId);
        }, s.retryMs);
        s.retry.unref();
      }
    } finally {
      s.reading = false;
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
