/**
 * EventLog: the append-only, per-stream event log (a stream is a turn, a workflow…), typed by the
 * stream kind's event union. It only STORES; waking live readers is the job of a separate
 * {@link EventNotifier}. {@link PublishedEventLog} (src/store/published-event-log.ts) composes the
 * two with the one rule readers rely on: store, then notify.
 *
 * Ordering contract: `seq` starts at 1 per stream and increases by 1 with no gaps; `append` returns
 * once the event is durably stored. Implementations: SQLite (src/store/sqlite-event-log.ts); a
 * networked engine implements the same interface (contract suite: test/store/event-log.contract.ts).
 */
import type { LeaseFence } from './lease-fence.js';

/** One stored event. `event` is the JSON object that was appended (it has a string `type`). */
export interface LoggedEvent<E extends { type: string } = { type: string }> {
  streamId: string;
  /** 1, 2, 3… per stream. */
  seq: number;
  /** ISO 8601 time it was stored. */
  createdAt: string;
  event: E;
  /**
   * `event` as the JSON text stored, when the store has it at hand (SQLite): equal to
   * `JSON.stringify(event)`, so a reader that sends the event on can reuse it instead of
   * serializing again. Absent: serialize `event`.
   */
  json?: string;
}

export type EventListener<E extends { type: string }> = (logged: LoggedEvent<E>) => void;

export interface EventLog<E extends { type: string } = { type: string }> {
  /**
   * Store `event` as the next event of `streamId`. Resolves with the stored form (fields JSON
   * cannot represent may be replaced by markers; the stored form is what readers get).
   * With `fence` (a run's lease on the turn `streamId`, src/store/lease-fence.ts) an engine shared
   * by several instances stores it only while that lease is held, else rejects with
   * `LeaseLostError`; an engine owned by one process ignores it. Nothing is stored after a
   * stream's terminal event (Postgres: rejects with `StreamClosedError`).
   */
  append(streamId: string, event: E, fence?: LeaseFence): Promise<LoggedEvent<E>>;
  /** Stored events with `seq > afterSeq`, in order, at most `limit` (default 1000). */
  read(streamId: string, afterSeq: number, limit?: number): Promise<LoggedEvent<E>[]>;
  /** Highest stored seq of the stream (0 when it has none). */
  lastSeq(streamId: string): Promise<number>;
  /** The last stored event of the stream, if any. */
  last(streamId: string): Promise<LoggedEvent<E> | undefined>;
  /**
   * Optional write-behind append: the event is numbered at once and stored with the engine's next
   * batch — at the latest at the end of the current event-loop turn, or earlier at a `flush`, a
   * read of the log, an `append` (which waits for its own batch) or a checkpoint written in the
   * same database transaction. For a writer that needs the seq now but not durability before it
   * goes on; `stored` settles when the event is durable (and, on a published log, notified).
   * Engines without it: use `append`.
   */
  appendQueued?(streamId: string, event: E): QueuedAppend<E>;
  /** Optional: store everything queued (by `appendQueued` or joined writes) now. */
  flushQueued?(): void | Promise<void>;
}

/** What {@link EventLog.appendQueued} returns. */
export interface QueuedAppend<E extends { type: string } = { type: string }> {
  /** The event's seq in its stream (final: gapless, in append order). */
  seq: number;
  /** Settles once the event is stored (rejects when it could not be). */
  stored: Promise<LoggedEvent<E>>;
}

/**
 * EventNotifier: wakes live readers of a stream after an event was stored. In-process
 * implementation: src/store/in-process-notifier.ts; a multi-instance engine (LISTEN/NOTIFY) may
 * deliver an event late or twice, so listeners skip `seq <= last seen` and rely on the log for
 * anything missed.
 */
export interface EventNotifier<E extends { type: string } = { type: string }> {
  /** Deliver `logged` to the stream's current listeners, synchronously, in call order. Never throws. */
  notify(logged: LoggedEvent<E>): void;
  /**
   * Call `listener` for every event notified on `streamId` from now on. Returns the unsubscribe
   * function. A throwing listener is unsubscribed and never breaks `notify`.
   */
  subscribe(streamId: string, listener: EventListener<E>): () => void;
  /**
   * Optional: send `topic` (a short string, no event stored) to the {@link onBroadcast} listeners of
   * every instance, this one at once. A wake-up only — it may arrive late or not at all (the
   * receiver must also find the state it signals by polling). Never throws.
   */
  broadcast?(topic: string): void;
  /** Optional: call `listener` with every topic broadcast from now on; returns the unsubscribe function. */
  onBroadcast?(listener: (topic: string) => void): () => void;
}
