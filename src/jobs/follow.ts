/**
 * Following a job's event stream from a position until a condition is met: read the stored events
 * after the cursor, then wait for the next wake-up (an in-process notification, or a poll every
 * {@link FOLLOW_POLL_MS} for events stored by another instance), until `visit` returns a value,
 * the timeout passes or the signal aborts. Subscribing before reading means nothing is missed
 * (the event-log rule "store, then notify").
 */
import type { LoggedEvent } from '../store/event-log.js';
import type { PublishedEventLog } from '../store/published-event-log.js';
import type { JobEvent } from './events.js';

export const FOLLOW_POLL_MS = 500;

/**
 * Calls `visit` with each event of `streamId` after `afterSeq`, in order; resolves with the first
 * value it returns (not undefined), or undefined when `timeoutMs` passed first.
 * @throws the signal's reason when it aborts.
 */
export async function followUntil<T>(
  log: PublishedEventLog<JobEvent>,
  streamId: string,
  afterSeq: number,
  timeoutMs: number,
  visit: (logged: LoggedEvent<JobEvent>) => T | undefined,
  signal?: AbortSignal,
): Promise<T | undefined> {
  let wake: (() => void) | undefined;
  const unsubscribe = log.subscribe(streamId, () => wake?.());
  const deadline = Date.now() + timeoutMs;
  let cursor = afterSeq;
  try {
    for (;;) {
      signal?.throwIfAborted();
      for (;;) {
        const page = await log.read(streamId, cursor, 500);
        for (const logged of page) {
          cursor = logged.seq;
          const out = visit(logged);
          if (out !== undefined) return out;
        }
        if (page.length < 500) break;
      }
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, FOLLOW_POLL_MS));
        const onAbort = () => done();
        signal?.addEventListener('abort', onAbort, { once: true });
        wake = done;
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          wake = undefined;
          resolve();
        }
      });
    }
  } finally {
    unsubscribe();
  }
}
