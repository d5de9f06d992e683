/**
 * Fewer, larger delta events: sits between a turn's emit and the event log. Consecutive
 * `message.delta` (or `reasoning.delta`) events are joined and written at most once per
 * `windowMs` (default 50 ms) or as soon as `maxChars` (default 4,096 characters) are buffered;
 * any other event first writes what is buffered, so the order of events and the concatenated text
 * are exactly what the model streamed. A 1 MB answer is then a few hundred rows instead of
 * ~140,000.
 *
 * Events per turn are capped (`maxEvents`, MAX_EVENTS_PER_TURN, default 20,000): once that many
 * were written, further deltas are dropped (the `message.completed` event still carries the whole
 * text); every other event is still written.
 *
 * Writes are serialized: the returned emit and the window timer share one queue, so the wrapped
 * `emit` is never called concurrently.
 */
import type { TurnEvent } from '../runtime/events.js';

export interface DeltaCoalescerOptions {
  /** Max ms a delta waits before it is written (default 50). */
  windowMs?: number;
  /** Write once this many characters are buffered (default 4096). */
  maxChars?: number;
  /** Events per turn after which deltas are dropped (default 20 000). */
  maxEvents?: number;
}

type Delta = Extract<TurnEvent, { type: 'message.delta' | 'reasoning.delta' }>;

const isDelta = (e: TurnEvent): e is Delta => e.type === 'message.delta' || e.type === 'reasoning.delta';

/**
 * Wrap `emit` (the turn's writer to the event log) with delta coalescing and the event cap.
 * @returns the emit to give the loop; it resolves once the event (or its buffering) is done.
 */
export function coalesceDeltas(emit: (event: TurnEvent) => Promise<void>, o: DeltaCoalescerOptions = {}): (event: TurnEvent) => Promise<void> {
  const windowMs = o.windowMs ?? 50;
  const maxChars = o.maxChars ?? 4096;
  const maxEvents = o.maxEvents ?? 20_000;
  let written = 0;
  let pending: Delta | null = null;
  let timer: NodeJS.Timeout | undefined;
  let queue: Promise<void> = Promise.resolve();

  const write = async (event: TurnEvent) => {
    written++;
    await emit(event);
  };
  const flush = async () => {
    clearTimeout(timer);
    timer = undefined;
    const p = pending;
    pending = null;
    if (p) await write(p);
  };
  const handle = async (event: TurnEvent) => {
    if (!isDelta(event)) {
      await flush();
      await write(event);
      return;
    }
    if (event.text === '') return;
    if (pending && pending.type !== event.type) await flush();
    if (written + (pending ? 1 : 0) >= maxEvents) return; // capped: the completed message has the text
    pending = pending ? { ...pending, text: pending.text + event.text } : { ...event };
    if (pending.text.length >= maxChars) await flush();
    else timer ??= setTimeout(() => void enqueue(flush), windowMs);
  };
  const enqueue = (job: () => Promise<void>): Promise<void> => {
    const next = queue.then(job);
    queue = next.catch(() => {});
    return next;
  };
  return (event) => enqueue(() => handle(event));
}
