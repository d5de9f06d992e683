/**
 * PublishedEventLog: an {@link EventLog} (storage) plus an {@link EventNotifier} (wake-ups) with the
 * rule every reader relies on — an event is STORED FIRST, then notified. A reader that subscribes
 * first and reads the log second therefore misses nothing (it may see an event twice and skips
 * `seq <= last sent`): see src/http/sse-stream.ts.
 */
import type { EventListener, EventLog, EventNotifier, LoggedEvent, QueuedAppend } from './event-log.js';
import type { LeaseFence } from './lease-fence.js';

export class PublishedEventLog<E extends { type: string }> implements EventLog<E> {
  /** Present when the store has it: numbered at once; notified once stored (in seq order). */
  appendQueued?: (streamId: string, event: E) => QueuedAppend<E>;
  /** Present when the store has it: store what is queued now. */
  flushQueued?: () => void | Promise<void>;

  constructor(
    readonly store: EventLog<E>,
    readonly notifier: EventNotifier<E>,
  ) {
    const queued = store.appendQueued?.bind(store);
    if (queued) {
      this.appendQueued = (streamId, event) => {
        const q = queued(streamId, event);
        return {
          seq: q.seq,
          stored: q.stored.then((logged) => {
            this.notifier.notify(logged);
            return logged;
          }),
        };
      };
    }
    if (store.flushQueued) this.flushQueued = store.flushQueued.bind(store);
  }

  /** Store, then notify; resolves with the stored event. */
  async append(streamId: string, event: E, fence?: LeaseFence): Promise<LoggedEvent<E>> {
    const logged = await this.store.append(streamId, event, fence);
    this.notifier.notify(logged);
    return logged;
  }

  read(streamId: string, afterSeq: number, limit?: number): Promise<LoggedEvent<E>[]> {
    return this.store.read(streamId, afterSeq, limit);
  }

  lastSeq(streamId: string): Promise<number> {
    return this.store.lastSeq(streamId);
  }

  last(streamId: string): Promise<LoggedEvent<E> | undefined> {
    return this.store.last(streamId);
  }

  /** Follow live events of `streamId` (see {@link EventNotifier.subscribe}). */
  subscribe(streamId: string, listener: EventListener<E>): () => void {
    return this.notifier.subscribe(streamId, listener);
  }
}
