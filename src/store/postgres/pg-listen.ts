/**
 * One dedicated Postgres `LISTEN` connection, shared by every {@link PgEventNotifier} of an
 * instance (turns, workflows, background jobs: src/store/turn-engine.ts), so an instance holds one
 * LISTEN connection, not one per event log. Every notifier listens on the same channel
 * ({@link NOTIFY_CHANNEL}); each picks the payloads of the streams it follows (stream ids are
 * UUIDs, unique across the logs) and hears every broadcast.
 * - Subscribers hear `notification(payload)`, `up()` once the connection is (again) listening —
 *   each then reads what was stored meanwhile — and `down()` when it is lost (each then polls).
 * - A lost or failed connection is re-opened after {@link LISTEN_RETRY_MIN_MS}, doubling per failed
 *   try up to {@link LISTEN_RETRY_MAX_MS}, and from the minimum again once it was up.
 * - `onError(err, 'listen connection')` hears each failure, `onRecovered('listen connection')` each
 *   success (for logs that report an outage once and its end once: src/failure-log.ts).
 */
import pg from 'pg';

export const NOTIFY_CHANNEL = 'turn_service_events';
/** First delay before the LISTEN connection is opened again after it failed, ms (doubling per failure). */
export const LISTEN_RETRY_MIN_MS = 500;
/** Longest delay between tries to open the LISTEN connection, ms. */
export const LISTEN_RETRY_MAX_MS = 30_000;
/** Ms the LISTEN connection may take to connect, and its LISTEN statement to be answered. */
const LISTEN_TIMEOUT_MS = 10_000;

/** What a user of the shared connection hears. */
export interface ListenSubscriber {
  notification(payload: string): void;
  /** The connection is listening (first time, or again after it was lost). */
  up(): void;
  /** The connection was lost; it is re-opened in the background. */
  down(): void;
}

export interface PgListenOptions {
  /** Connection URL (same database as the logs). */
  url: string;
  onError?: (err: unknown, what: string) => void;
  onRecovered?: (what: string) => void;
  /** First and longest retry delay, ms (tests) [{@link LISTEN_RETRY_MIN_MS}, {@link LISTEN_RETRY_MAX_MS}]. */
  retryMinMs?: number;
  retryMaxMs?: number;
}

export class PgListenConnection {
  private readonly subscribers = new Set<ListenSubscriber>();
  private client: pg.Client | undefined;
  private started: Promise<void> | undefined;
  private retryMs = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** `ok` while the connection is listening, else `reconnecting`. */
  state: 'ok' | 'reconnecting' = 'reconnecting';

  constructor(private readonly options: PgListenOptions) {}

  /** Add a subscriber; returns its removal. A subscriber added while up hears nothing until the next change. */
  add(subscriber: ListenSubscriber): () => void {
    this.subscribers.add(subscriber);
    return () => void this.subscribers.delete(subscriber);
  }

  /** Open the connection (once; later calls wait for the first try). Never rejects: a failure is retried in the background. */
  start(): Promise<void> {
    return (this.started ??= this.connect());
  }

  /** Stop retrying and close the connection. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const c = this.client;
    this.client = undefined;
    this.state = 'reconnecting';
    await c?.end().catch(() => undefined);
  }

  private each(fn: (s: ListenSubscriber) => void): void {
    for (const s of [...this.subscribers]) {
      try {
        fn(s);
      } catch {
        // a subscriber's failure is its own
      }
    }
  }

  private async connect(): Promise<void> {
    this.retryTimer = undefined;
    if (this.closed) return;
    // Keep-alive: a LISTEN connection whose peer vanished without a reset is noticed (and re-opened).
    // Bounded connect and LISTEN: a server that accepts the connection but does not answer (stopped,
    // overloaded) fails this try, and the next one follows, instead of blocking reconnection for good.
    const client = new pg.Client({
      connectionString: this.options.url,
      application_name: 'turn-service-listen',
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: LISTEN_TIMEOUT_MS,
      query_timeout: LISTEN_TIMEOUT_MS,
    });
    client.on('notification', (msg) => {
      if (this.client !== client) return;
      const payload = msg.payload ?? '';
      this.each((s) => s.notification(payload));
    });
    const lost = (err?: unknown) => {
      if (this.client !== client) return;
      this.client = undefined;
      const wasUp = this.state === 'ok';
      this.state = 'reconnecting';
      if (err) this.options.onError?.(err, 'listen connection');
      if (wasUp) {
        this.retryMs = 0;
        this.each((s) => s.down());
      }
      if (this.closed) return;
      const min = this.options.retryMinMs ?? LISTEN_RETRY_MIN_MS;
      this.retryMs = Math.min(this.options.retryMaxMs ?? LISTEN_RETRY_MAX_MS, Math.max(min, this.retryMs * 2));
      this.retryTimer = setTimeout(() => void this.connect(), this.retryMs);
      this.retryTimer.unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
      if (this.closed) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.state = 'ok';
      this.options.onRecovered?.('listen connection');
      this.each((s) => s.up());
    } catch (err) {
      await client.end().catch(() => undefined);
      this.client = client; // so `lost` handles it
      lost(err);
    }
  }
}
