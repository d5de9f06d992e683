/**
 * Resumable SSE over an {@link EventLog} stream (a turn, a workflow…), on top of `@fastify/sse`.
 *
 * Rules (README.md "SSE events"; framing per the WHATWG HTML "Server-sent events" spec):
 * - `id:` is the event's `seq` as a string (`@fastify/sse` drops a numeric 0), `event:` is the
 *   event's `type`, `data:` is one line of JSON (JSON.stringify escapes CR/LF inside strings, so
 *   tool or model text can never inject SSE fields).
 * - Resume point: the `Last-Event-ID` header, else `?after=`, else 0 (from the first event). A
 *   value that is not a non-negative integer, or is beyond the stream's last stored seq → 400.
 * - Stored events after the resume point are replayed, then live events follow, with no gap and
 *   no duplicate even when events are appended during the switch (see {@link streamEventLog}).
 * - The stream closes after the terminal event (or at once when the stream already ended).
 * - A slow subscriber buffers at most `maxBuffered` live events; past that its connection is
 *   dropped so memory stays bounded, and the client resumes with `Last-Event-ID`.
 * - A client that stops reading (a write still not drained after `writeTimeoutMs`, default 60 s)
 *   has its connection closed, so a stalled socket and its pending write cannot stay open forever;
 *   the client resumes with `Last-Event-ID`.
 * - Writes after the client went away are skipped; nothing throws out of here because of a
 *   closed socket. Heartbeat comments (`: heartbeat`) come from the plugin (SSE_HEARTBEAT_MS).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventLog, LoggedEvent } from '../store/event-log.js';
import { badRequest } from './errors.js';

const PAGE = 500;

/**
 * Read the resume point of a request: `Last-Event-ID` header (wins) or `?after=`.
 * @throws HttpError 400 `invalid_last_event_id` when it is not a non-negative integer or is
 *   beyond `lastSeq` (an id this stream never produced).
 */
export function resumePoint(request: FastifyRequest, lastSeq: number): number {
  const header = request.headers['last-event-id'];
  const query = (request.query as Record<string, unknown> | undefined)?.after;
  const raw = typeof header === 'string' && header !== '' ? header : typeof query === 'string' ? query : undefined;
  if (raw === undefined) return 0;
  if (!/^\d{1,15}$/.test(raw.trim())) {
    throw badRequest('invalid_last_event_id', `event id ${JSON.stringify(raw)} is not a non-negative integer`);
  }
  const after = Number(raw.trim());
  if (after > lastSeq) {
    throw badRequest('invalid_last_event_id', `event id ${after} is beyond the last stored event (${lastSeq})`, {
      last_event_id: lastSeq,
    });
  }
  return after;
}

export interface StreamEventLogOptions<E extends { type: string }> {
  log: EventLog<E>;
  streamId: string;
  /** Send events with seq > after. */
  after: number;
  /** The JSON object sent as `data:` for one stored event. */
  toData: (logged: LoggedEvent<E>) => object;
  /** True for the event after which the stream ends. */
  isTerminal: (event: E) => boolean;
  /** Max live events queued for this subscriber before its connection is dropped. */
  maxBuffered: number;
  /** Ms a write may wait for the socket to drain before the connection is closed (default 60 000). */
  writeTimeoutMs?: number;
}

/** Default of {@link StreamEventLogOptions.writeTimeoutMs}, ms. */
export const SSE_WRITE_TIMEOUT_MS = 60_000;

/** Why a stream ended. */
export type StreamEnd = 'terminal' | 'disconnected' | 'overflow' | 'stalled';

/**
 * Stream `streamId` to `reply` (a route declared with `sse`) until its terminal event, the client
 * disconnecting, or buffer overflow. Commits the 200 `text/event-stream` response at once.
 *
 * Gap-free switch from stored to live: the subscription is registered first but only queues
 * events once `live` is set; the stored log is then read again after that point, and queued
 * events with `seq <= lastSent` are skipped. Because {@link EventLog.append} notifies
 * synchronously after storing, every event is either in that second read or in the queue.
 */
export async function streamEventLog<E extends { type: string }>(
  reply: FastifyReply,
  opts: StreamEventLogOptions<E>,
): Promise<StreamEnd> {
  const sse = reply.sse;
  if (!sse) throw new Error('streamEventLog needs a route declared with `sse`');
  const { log, streamId, toData, isTerminal, maxBuffered } = opts;
  const writeTimeoutMs = opts.writeTimeoutMs ?? SSE_WRITE_TIMEOUT_MS;
  let lastSent = opts.after;
  let live = false;
  let overflow = false;
  let stalled = false;
  const lost = (): StreamEnd => (overflow ? 'overflow' : stalled ? 'stalled' : 'disconnected');
  let closed = false;
  const queue: LoggedEvent<E>[] = [];
  let wake: (() => void) | undefined;
  const signalWake = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const closedPromise = new Promise<void>((resolve) => sse.onClose(() => {
    closed = true;
    signalWake();
    resolve();
  }));
  if (!sse.isConnected) return 'disconnected';

  const unsubscribe = log.subscribe(streamId, (logged) => {
    if (!live || logged.seq <= lastSent) return;
    if (queue.length >= maxBuffered) {
      overflow = true;
      queue.length = 0;
      reply.raw.destroy();
    } else {
      queue.push(logged);
    }
    signalWake();
  });

  /** Write one event; false when the client is gone. */
  const write = async (logged: LoggedEvent<E>): Promise<boolean> => {
    if (closed || !sse.isConnected) return false;
    try {
      const sent = sse.send({ id: String(logged.seq), event: logged.event.type, data: toData(logged) });
      sent.catch(() => {}); // a send still pending when the socket closes must not reject unhandled
      // send() wrote synchronously; only a write the socket could not take needs the drain timer.
      if (reply.raw.writableNeedDrain) {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), writeTimeoutMs);
        });
        const r = await Promise.race([sent, closedPromise, timeout]);
        clearTimeout(timer);
        if (r === 'timeout') {
          stalled = true;
          reply.raw.destroy();
          return false;
        }
      } else {
        await Promise.race([sent, closedPromise]);
      }
    } catch {
      return false;
    }
    if (closed || !sse.isConnected) return false;
    lastSent = logged.seq;
    return true;
  };

  /** Send every stored event after lastSent; 'more' when a full page was read. */
  const sendStored = async (): Promise<StreamEnd | 'more' | 'caught_up'> => {
    const page = await log.read(streamId, lastSent, PAGE);
    for (const logged of page) {
      if (logged.seq <= lastSent) continue;
      if (!(await write(logged))) return lost();
      if (isTerminal(logged.event)) return 'terminal';
    }
    return page.length === PAGE ? 'more' : 'caught_up';
  };

  try {
    sse.sendHeaders();
    const last = await log.last(streamId);
    if (last && isTerminal(last.event) && last.seq <= lastSent) return 'terminal';

    for (;;) {
      const r = await sendStored();
      if (r === 'more') continue;
      if (r !== 'caught_up') return r;
      live = true;
      const again = await sendStored();
      if (again === 'caught_up') break;
      if (again !== 'more') return again;
      live = false;
      queue.length = 0;
    }

    for (;;) {
      if (overflow) return 'overflow';
      if (closed || !sse.isConnected) return lost();
      const next = queue.shift();
      if (!next) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      if (next.seq <= lastSent) continue;
      if (next.seq !== lastSent + 1) {
        // Should not happen (append notifies in order); fill from the store rather than skip.
        queue.unshift(next);
        const r = await sendStored();
        if (r !== 'caught_up' && r !== 'more') return r;
        continue;
      }
      if (!(await write(next))) return lost();
      if (isTerminal(next.event)) return 'terminal';
    }
  } finally {
    unsubscribe();
  }
}
