/**
 * Observing the event log without changing it: {@link observeEventLog} wraps `append` and
 * `subscribe` of any {@link EventLog} instance in place (SQLite today, Postgres later), so every
 * part that appends (turns, workflows) or subscribes (SSE streams) is observed, and the event log
 * itself stays ignorant of metrics and webhooks.
 *
 * - `append` is timed into `event_log_append_seconds`, then each observer is called with the
 *   stored event. Observers must be quick and must not throw (a throw is caught and logged and
 *   never fails the append); they run after the event is stored, so "store, then notify" holds.
 * - The write-behind `appendQueued` (when the log has it) is timed until stored; its events are
 *   observed one at a time in the order stored, on a chain the writer does not wait for.
 * - `subscribe` counts open subscriptions in `sse_subscribers` (unsubscribe counts down once).
 */
import type { EventLog, EventNotifier, LoggedEvent } from '../store/event-log.js';
import type { ServiceMetrics } from './metrics.js';

/** Called with every stored event; may return a promise (awaited before append returns). */
export type EventObserver = (logged: LoggedEvent) => void | Promise<void>;

export interface EventLogHooks {
  metrics: ServiceMetrics;
  observers: EventObserver[];
  onObserverError: (err: unknown, logged: LoggedEvent) => void;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any stream kind's event union
export function observeEventLog<L extends EventLog<any> & Pick<EventNotifier<any>, 'subscribe'>>(log: L, hooks: EventLogHooks): L {
  const append = log.append.bind(log);
  const subscribe = log.subscribe.bind(log);
  const { observers } = hooks;
  /** The rest of `observe` once an observer returned a promise: the others in order, each awaited. */
  const observeRest = async (pending: Promise<void>, next: number, logged: LoggedEvent): Promise<void> => {
    try {
      await pending;
    } catch (err) {
      hooks.onObserverError(err, logged);
    }
    for (let i = next; i < observers.length; i++) {
      try {
        await observers[i](logged);
      } catch (err) {
        hooks.onObserverError(err, logged);
      }
    }
  };
  /**
   * Every observer on `logged`, in order; synchronous (no promise, no microtask) while observers
   * answer synchronously — most events concern none of them — and a promise from the first one
   * that does not.
   */
  const observe = (logged: LoggedEvent): void | Promise<void> => {
    for (let i = 0; i < observers.length; i++) {
      let r: void | Promise<void>;
      try {
        r = observers[i](logged);
      } catch (err) {
        hooks.onObserverError(err, logged);
        continue;
      }
      if (r && typeof (r as Promise<void>).then === 'function') return observeRest(r, i + 1, logged);
    }
  };
  log.append = async (streamId, event, fence) => {
    const end = hooks.metrics.eventLogAppend.startTimer();
    const logged = await append(streamId, event, fence);
    end();
    const observed = observe(logged);
    if (observed) await observed;
    return logged;
  };
  // Write-behind appends: observed one at a time in the order stored, on a chain of their own that
  // the writer does not wait for (an observer may itself append to this log without a deadlock).
  const queued = log.appendQueued?.bind(log);
  // The chain exists only while an observer is still working on an earlier event: otherwise an
  // event is observed at once, synchronously, when it is stored (stored events settle in order).
  let observing: Promise<void> | undefined;
  const observeInOrder = (logged: LoggedEvent) => {
    const next = observing ? observing.then(() => observe(logged)) : observe(logged);
    if (!next) return;
    observing = next;
    void next.then(() => {
      if (observing === next) observing = undefined;
    });
  };
  if (queued) {
    log.appendQueued = (streamId, event) => {
      const end = hooks.metrics.eventLogAppend.startTimer();
      const q = queued(streamId, event);
      return {
        seq: q.seq,
        stored: q.stored.then((logged) => {
          end();
          observeInOrder(logged);
          return logged;
        }),
      };
    };
  }
  log.subscribe = (streamId, listener) => {
    const unsubscribe = subscribe(streamId, listener);
    hooks.metrics.sseSubscribers.inc();
    let open = true;
    return () => {
      if (open) hooks.metrics.sseSubscribers.dec();
      open = false;
      unsubscribe();
    };
  };
  return log;
}
