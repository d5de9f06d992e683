/**
 * Resumable SSE over an {@link EventLog} stream (a turn, a workflow…), on top of `@fastify/sse`.
 *
 * Rules (README.md "SSE events"; framing per the WHATWG HTML "Server-sent events" spec):
 * - `id:` is the event's `seq` as a string (`@fastify/sse` drops a numeric 0), `event:` is the
 *   event's `type`, `data:` is one line of JSON (JSON.stringify escapes CR/LF inside strings, so
 *   tool or model text can never inject SSE fields). Each live event's frame is serialized once
 *   and the same bytes go to every subscriber (src/http/sse-frames.ts); the plugin still sends
 *   the headers and heartbeats.
 * - Resume point: the `Last-Event-ID` header, else `?after=`, else 0 (from the first event). A
 *   value that is not a non-negative integer, or is beyond the stream's last stored seq → 400
 *   (./resume-point.ts).
 * - Stored events after the resume point are replayed, then live events follow, with no gap and
 *   no duplicate even when events are appended during the switch (see {@link streamEventLog}).
 * - The stream closes after the terminal event (or at once when the stream already ended); when
 *   the client sent `Connection: close`, so does the connection.
 * - A live event that reaches an idle subscriber (nothing queued, socket not full) is written in
 *   the notifier's own call — all subscribers of the event in one synchronous pass; the
 *   subscriber's loop handles catch-up, a socket that must drain and the terminal event.
 * - A slow subscriber holds at most `maxBuffered` live events in memory; past that it stops
 *   queuing and catches up from the stored log (memory stays bounded, nothing is dropped).
 * - A client that stops reading has its connection closed once a write has waited `writeTimeoutMs`
 *   (default 60 s) with NO progress at all — nothing of the backlog consumed during the whole
 *   period (see send-progress.ts for how progress is seen). A client that reads steadily but
 *   slower than the turn writes is merely behind: it is never closed for that and gets every
 *   event up to the terminal one. A stalled client resumes with `Last-Event-ID`.
 * - A stream the service closes (`stalled`) is logged (warn) with the stream's log fields (e.g.
 *   `turn_id`), the reason and the last seq delivered; one the client left before its terminal
 *   event is logged the same way at info level (`disconnected`).
 * - Writes after the client went away are skipped; nothing throws out of here because of a
 *   closed socket. Heartbeat comments (`: heartbeat`) come from the plugin (SSE_HEARTBEAT_MS).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventLog, EventNotifier, LoggedEvent } from '../store/event-log.js';
import type { Socket } from 'node:net';
import { sseFrame } from './sse-frames.js';
import { progressed, sendBacklog } from './send-progress.js';

const PAGE = 500;

export { resumePoint } from './resume-point.js';

export interface StreamEventLogOptions<E extends { type: string }> {
  /** The stored log plus its notifier's `subscribe` (a PublishedEventLog: store, then notify). */
  log: EventLog<E> & Pick<EventNotifier<E>, 'subscribe'>;
  streamId: string;
  /** Send events with seq > after. */
  after: number;
  /** The JSON object sent as `data:` for one stored event, or its JSON text (one line). */
  toData: (logged: LoggedEvent<E>) => object | string;
  /** True for the event after which the stream ends. */
  isTerminal: (event: E) => boolean;
  /**
   * Max live events held in memory for this subscriber; past that it stops queuing and catches up
   * from the stored log (nothing is dropped, memory stays bounded).
   */
  maxBuffered: number;
  /** Ms a write may wait WITHOUT any progress before the connection is closed (default 60 000). */
  writeTimeoutMs?: number;
  /** Where a dropped stream is reported (a pino/Fastify logger); omitted: not logged. */
  logger?: { warn: (obj: object, msg: string) => void; info: (obj: object, msg: string) => void };
  /** Fields that identify the stream in that log line, e.g. `{ turn_id }`. */
  logFields?: Record<string, unknown>;
}

/** Default of {@link StreamEventLogOptions.writeTimeoutMs}, ms. */
export const SSE_WRITE_TIMEOUT_MS = 60_000;

/** Why a stream ended: its terminal event was sent, the client went away, or it made no progress. */
export type StreamEnd = 'terminal' | 'disconnected' | 'stalled';

/**
 * Stream `streamId` to `reply` (a route declared with `sse`) until its terminal event, the client
 * disconnecting, or the client making no progress for `writeTimeoutMs`. Commits the 200
 * `text/event-stream` response at once and sends its head (status and headers) right away.
 *
 * Gap-free switch from stored to live: the subscription is registered first but only queues
 * events once `live` is set; the stored log is then read again after that point, and queued
 * events with `seq <= lastSent` are skipped. Because an event is notified only after it is
 * stored (src/store/published-event-log.ts), every event is either in that second read or in the queue. A
 * subscriber whose queue reaches `maxBuffered` goes back to reading the store the same way.
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
  let behind = false;
  let stalled = false;
  const lost = (): StreamEnd => (stalled ? 'stalled' : 'disconnected');
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

  /** Set when a live write (below) filled the socket's buffer: the loop waits for `drain` before writing more. */
  let mustDrain = false;
  /** True while the loop waits for a live event (nothing queued, nothing being written). */
  let idle = false;
  const unsubscribe = log.subscribe(streamId, (logged) => {
    if (!live || behind || logged.seq <= lastSent) return;
    // The next event of an idle live stream is written right here, as the notifier hands it over
    // (every subscriber in one synchronous pass, like a plain fan-out loop), instead of waking the
    // loop for it; the loop keeps what needs waiting: a full socket, the terminal event, catch-up.
    if (idle && !mustDrain && queue.length === 0 && logged.seq === lastSent + 1 && !isTerminal(logged.event) && !closed && sse.isConnected) {
      const res = reply.raw;
      try {
        if (!res.write(sseFrame(logged, toData))) {
          mustDrain = true;
          signalWake();
        }
        lastSent = logged.seq;
        return;
      } catch {
        // fall through: the loop's own write finds the connection gone
      }
    }
    if (queue.length >= maxBuffered) {
      // Too far behind to keep live events in memory: drop the queue, catch up from the store.
      behind = true;
      queue.length = 0;
    } else {
      queue.push(logged);
    }
    signalWake();
  });

  /**
   * Wait until the socket takes writes again (`drain`), watching progress; false when the client
   * is gone or made no progress for the write timeout (then the connection is closed).
   */
  const drained = async (): Promise<boolean> => {
    const res = reply.raw;
    if (!res.writableNeedDrain) return !closed && sse.isConnected;
    const drain = new Promise<void>((resolve) => res.once('drain', resolve));
    const r = await waitForProgress(res.socket, Promise.race([drain, closedPromise]), writeTimeoutMs);
    if (r === 'stalled') {
      stalled = true;
      res.destroy();
      return false;
    }
    return !closed && sse.isConnected;
  };

  /**
   * Write one event's frame (built once for all subscribers, sse-frames.ts); false when the client
   * is gone (or made no progress, then closed). A write the socket takes costs no promise at all;
   * only one it could not take waits for `drain`, watching progress.
   */
  const write = async (logged: LoggedEvent<E>): Promise<boolean> => {
    if (closed || !sse.isConnected) return false;
    const res = reply.raw;
    try {
      if (!res.write(sseFrame(logged, toData)) && !(await drained())) return false;
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

  /** Replay from the store until caught up, then switch to live (see the function doc). */
  const catchUp = async (): Promise<StreamEnd | 'live'> => {
    for (;;) {
      live = false;
      behind = false;
      queue.length = 0;
      const r = await sendStored();
      if (r === 'more') continue;
      if (r !== 'caught_up') return r;
      live = true;
      const again = await sendStored();
      if (again === 'caught_up') return 'live';
      if (again !== 'more') return again;
    }
  };

  const run = async (): Promise<StreamEnd> => {
    sse.sendHeaders();
    // writeHead only buffers the head until the first body write; a queued turn or a resume at the
    // end of a quiet log may write nothing for a long time, and the client must learn the status
    // and X-Turn-Id now (before its header timeout), not with the first event or heartbeat.
    reply.raw.flushHeaders();
    // A client already past the stream's terminal event gets nothing. Only one that resumes can
    // be (a terminal event has seq ≥ 1): from the start, the log is not read for it (a read writes
    // the log's queued events first, ahead of their batch).
    if (lastSent > 0) {
      const last = await log.last(streamId);
      if (last && isTerminal(last.event) && last.seq <= lastSent) return 'terminal';
    }
    const first = await catchUp();
    if (first !== 'live') return first;
    for (;;) {
      if (closed || !sse.isConnected) return lost();
      if (behind) {
        const r = await catchUp();
        if (r !== 'live') return r;
        continue;
      }
      if (mustDrain) {
        mustDrain = false;
        if (!(await drained())) return lost();
        continue;
      }
      const next = queue.shift();
      if (!next) {
        idle = true;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        idle = false;
        continue;
      }
      if (next.seq <= lastSent) continue;
      if (next.seq !== lastSent + 1) {
        // Should not happen (append notifies in order); fill from the store rather than skip.
        behind = true;
        continue;
      }
      if (!(await write(next))) return lost();
      if (isTerminal(next.event)) return 'terminal';
    }
  };

  try {
    const end = await run();
    if (end === 'terminal') closeAfterResponseIfAsked(reply);
    if (end === 'stalled') {
      opts.logger?.warn({ ...opts.logFields, stream_id: streamId, reason: 'stalled', write_timeout_ms: writeTimeoutMs, last_sent_seq: lastSent }, 'SSE stream dropped: the client read nothing for the whole write timeout');
    } else if (end === 'disconnected') {
      opts.logger?.info({ ...opts.logFields, stream_id: streamId, reason: 'disconnected', last_sent_seq: lastSent }, 'SSE stream ended before its terminal event: the client went away');
    }
    return end;
  } finally {
    unsubscribe();
  }
}

/**
 * The SSE plugin answers `Connection: keep-alive`, so Node keeps the socket open for the
 * keep-alive timeout after the response ends — even when the client sent `Connection: close`.
 * Honour the client: end the socket once the response has finished.
 */
function closeAfterResponseIfAsked(reply: FastifyReply): void {
  const connection = String(reply.request.headers.connection ?? '');
  if (!/(^|,)\s*close\s*(,|$)/i.test(connection)) return;
  const res = reply.raw;
  const socket = res.socket;
  if (!socket) return;
  if (res.writableFinished) socket.end();
  else res.once('finish', () => socket.end());
}

/**
 * Wait for `done` while watching the socket's backlog: 'done' when it settles, 'stalled' when
 * `timeoutMs` pass without the backlog shrinking once (send-progress.ts). Samples every quarter
 * of the timeout (25 ms … 1 s).
 */
async function waitForProgress(socket: Socket | null, done: Promise<unknown>, timeoutMs: number): Promise<'done' | 'stalled'> {
  let settled = false;
  const finished = done.then(() => 'done' as const, () => 'done' as const);
  void finished.then(() => (settled = true));
  if (!socket) {
    let timer: NodeJS.Timeout | undefined;
    const r = await Promise.race([finished, new Promise<'stalled'>((res) => (timer = setTimeout(() => res('stalled'), timeoutMs)))]);
    clearTimeout(timer);
    return r;
  }
  const tick = Math.min(1000, Math.max(25, Math.floor(timeoutMs / 4)));
  let before = await sendBacklog(socket);
  let lastProgress = Date.now();
  while (!settled) {
    let timer: NodeJS.Timeout | undefined;
    const r = await Promise.race([finished, new Promise<'tick'>((res) => (timer = setTimeout(() => res('tick'), tick)))]);
    clearTimeout(timer);
    if (r === 'done') return 'done';
    const now = await sendBacklog(socket);
    if (progressed(before, now)) lastProgress = Date.now();
    before = now;
    if (Date.now() - lastProgress >= timeoutMs && !settled) return 'stalled';
  }
  return 'done';
}
