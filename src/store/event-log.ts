/**
 * EventLog: the append-only, per-stream event log. Generic over the stream id (a turn id, a
 * workflow id…) and the event type. Appending is the only way an event reaches a client: routes
 * read stored events and then follow live ones through {@link EventLog.subscribe}, so a stored and
 * a streamed event can never differ.
 *
 * Ordering contract: `seq` starts at 1 per stream and increases by 1; `append` stores the event
 * and then notifies subscribers of that stream synchronously, in `seq` order, before it returns.
 * A reader that subscribes first and reads stored events second therefore misses nothing (it may
 * see an event twice and must skip `seq <= last sent`): see src/http/sse-stream.ts.
 */

/** One stored event. `event` is the JSON object that was appended (it has a string `type`). */
export interface LoggedEvent<E extends { type: string } = { type: string }> {
  streamId: string;
  /** 1, 2, 3… per stream. */
  seq: number;
  /** ISO 8601 time it was stored. */
  createdAt: string;
  event: E;
}

export type EventListener<E extends { type: string }> = (logged: LoggedEvent<E>) => void;

export interface EventLog<E extends { type: string } = { type: string }> {
  /** Store `event` as the next event of `streamId` and notify live subscribers. */
  append(streamId: string, event: E): Promise<LoggedEvent<E>>;
  /** Stored events with `seq > afterSeq`, in order, at most `limit` (default 1000). */
  read(streamId: string, afterSeq: number, limit?: number): Promise<LoggedEvent<E>[]>;
  /** Highest stored seq of the stream (0 when it has none). */
  lastSeq(streamId: string): Promise<number>;
  /** The last stored event of the stream, if any. */
  last(streamId: string): Promise<LoggedEvent<E> | undefined>;
  /**
   * Call `listener` for every event appended to `streamId` from now on (in-process only).
   * Returns the unsubscribe function. A throwing listener is unsubscribed, never breaks `append`.
   */
  subscribe(streamId: string, listener: EventListener<E>): () => void;
}
