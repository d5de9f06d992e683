/**
 * One SSE frame per stored event, built once and shared: every subscriber of a stream is handed
 * the same {@link LoggedEvent} object by the notifier, so the frame (`id:`, `event:`, one `data:`
 * line of JSON, blank line) is serialized on the first write and the same Buffer is written to
 * every other subscriber. Frames are held in WeakMaps: one lives as long as its event object,
 * and events read back from the store (a replay) get a frame of their own.
 *
 * Framing per the WHATWG "Server-sent events" spec, as `@fastify/sse` writes it: `id:` is the
 * seq as a string, `event:` the event's type; `JSON.stringify` escapes CR/LF inside strings, so
 * the data is always one line and no event text can inject an SSE field.
 */
import type { LoggedEvent } from '../store/event-log.js';

/** The data of an event's frame: a JSON-able object, or its JSON text already made (one line). */
type ToData<E extends { type: string }> = (logged: LoggedEvent<E>) => object | string;

const byShape = new WeakMap<ToData<never>, WeakMap<LoggedEvent<never>, Buffer>>();

/**
 * The frame of `logged` with `toData(logged)` as its data (cached per `toData` and event object).
 * A string from `toData` is taken as the data's JSON text: it must be one line (JSON.stringify's
 * output is).
 */
export function sseFrame<E extends { type: string }>(logged: LoggedEvent<E>, toData: ToData<E>): Buffer {
  let frames = byShape.get(toData as ToData<never>);
  if (!frames) byShape.set(toData as ToData<never>, (frames = new WeakMap()));
  let frame = frames.get(logged as LoggedEvent<never>);
  if (!frame) {
    const data = toData(logged);
    frame = Buffer.from(`id: ${logged.seq}\nevent: ${logged.event.type}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    frames.set(logged as LoggedEvent<never>, frame);
  }
  return frame;
}
