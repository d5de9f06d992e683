/**
 * Follows one turn's events over `EventSource` (GET /v1/turns/{id}/events).
 *
 * Resuming: when the connection drops, the browser's EventSource reconnects by itself and sends
 * the last `id:` it saw as the `Last-Event-ID` header (WHATWG HTML §9.2.4), so the server sends
 * only what came after. The page shows "reconnecting…" meanwhile. If the EventSource gives up
 * (the server answered an error, e.g. 401 because the stream token expired), we fetch the turn
 * again for a fresh `links.events` and open a new EventSource with `?after=<last seq>` (a new
 * EventSource has no Last-Event-ID). Duplicates are dropped by seq in turn-state.ts either way.
 */
import { isTerminal, type IncomingEvent } from './turn-state.js';

/** Every SSE `event:` name the service sends (src/runtime/events.ts `TurnEvent`). */
export const TURN_EVENT_TYPES = [
  'turn.started',
  'turn.resumed',
  'message.delta',
  'message.completed',
  'reasoning.delta',
  'model.warning',
  'tool.started',
  'tool.progress',
  'tool.completed',
  'presentation',
  'turn.warning',
  'input.queued',
  'input.applied',
  'input.not_applied',
  'approval.requested',
  'approval.resolved',
  'turn.completed',
  'turn.failed',
  'turn.cancelled',
] as const;

export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'lost';

export interface TurnStreamOptions {
  /** The turn's events URL (`links.events`, possibly carrying a stream token). */
  url: string;
  /** Seq of the last event already applied (0 = none); used for `?after=` on a fresh connection. */
  lastSeq: () => number;
  onEvent: (event: IncomingEvent) => void;
  onConnection: (state: ConnectionState) => void;
  /** A fresh events URL (e.g. with a new stream token), or null when none can be had. */
  refreshUrl: () => Promise<string | null>;
  /** Fresh connections tried after the EventSource gives up, before reporting `lost`. Default 6. */
  maxRestarts?: number;
}

/** Add `after=<seq>` to `url` (relative or absolute) when seq > 0. */
export function withAfter(url: string, seq: number): string {
  const u = new URL(url, window.location.href);
  if (seq > 0) u.searchParams.set('after', String(seq));
  else u.searchParams.delete('after');
  return u.origin === window.location.origin ? u.pathname + u.search : u.toString();
}

export class TurnStream {
  private source: EventSource | null = null;
  private closed = false;
  private restarts = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: TurnStreamOptions) {}

  start(): void {
    this.open(this.options.url);
  }

  /** Stop following (no more callbacks). */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.source?.close();
    this.source = null;
  }

  private open(url: string): void {
    if (this.closed) return;
    this.options.onConnection(this.restarts === 0 ? 'connecting' : 'reconnecting');
    const source = new EventSource(withAfter(url, this.options.lastSeq()));
    this.source = source;
    source.onopen = () => {
      if (this.source !== source) return;
      this.restarts = 0;
      this.options.onConnection('live');
    };
    const onMessage = (e: MessageEvent<string>) => {
      if (this.source !== source) return;
      let data: IncomingEvent;
      try {
        data = JSON.parse(e.data) as IncomingEvent;
      } catch {
        return;
      }
      if (typeof data.seq !== 'number') data.seq = Number(e.lastEventId);
      if (typeof data.type !== 'string') data.type = e.type;
      this.options.onEvent(data);
      if (isTerminal(data.type)) {
        this.close();
        this.options.onConnection('ended');
      }
    };
    for (const type of TURN_EVENT_TYPES) source.addEventListener(type, onMessage as EventListener);
    source.onerror = () => {
      if (this.source !== source || this.closed) return;
      if (source.readyState === EventSource.CONNECTING) {
        this.options.onConnection('reconnecting');
        return;
      }
      // CLOSED: the browser gave up (non-200 answer, wrong content type). Start afresh.
      source.close();
      this.restart();
    };
  }

  private restart(): void {
    const max = this.options.maxRestarts ?? 6;
    if (this.restarts >= max) {
      this.options.onConnection('lost');
      return;
    }
    this.restarts += 1;
    this.options.onConnection('reconnecting');
    const delay = Math.min(500 * 2 ** (this.restarts - 1), 8000);
    this.timer = setTimeout(() => {
      this.options
        .refreshUrl()
        .then((url) => {
          if (this.closed) return;
          if (url === null) this.options.onConnection('lost');
          else this.open(url);
        })
        .catch(() => this.restart());
    }, delay);
  }
}
