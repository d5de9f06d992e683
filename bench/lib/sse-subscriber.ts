/**
 * A lean SSE subscriber for the fan-out benches (the same client for the service and the bare
 * server, so client cost is alike on both sides): `node:http` GET, frames split at blank lines,
 * the `id:` of each frame recorded with its arrival time (`performance.now()`, ms).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface Subscriber {
  /** Arrival time per event id. */
  received: Map<number, number>;
  /** Ids in arrival order. */
  order: number[];
  /** Resolves once the response has started (headers received). */
  connected: Promise<void>;
  /** The response headers, once connected. */
  headers?: http.IncomingHttpHeaders;
  /** The `event:` of the last frame received. */
  lastType?: string;
  /** The `data:` of the last frame received (e.g. a `turn.failed` with its error). */
  lastData?: string;
  /** Why the request failed, when it did. */
  error?: string;
  /** Resolves when the server ends the stream. */
  done: Promise<void>;
  close(): void;
}

/**
 * Subscribe to `url` (a `text/event-stream` endpoint); with `body`, POST it as JSON (a turn
 * streamed from its creation).
 */
export function subscribe(url: string, agent: http.Agent, body?: unknown): Subscriber {
  const received = new Map<number, number>();
  const order: number[] = [];
  let onConnected!: () => void;
  let onDone!: () => void;
  const connected = new Promise<void>((r) => (onConnected = r));
  const done = new Promise<void>((r) => (onDone = r));
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: http.OutgoingHttpHeaders = { accept: 'text/event-stream', ...(payload ? { 'content-type': 'application/json' } : {}) };
  const req = http.request(url, { agent, method: payload ? 'POST' : 'GET', headers }, (res) => {
    sub.headers = res.headers;
    onConnected();
    res.setEncoding('utf8');
    let buf = '';
    res.on('data', (chunk: string) => {
      const now = performance.now();
      buf += chunk;
      let end: number;
      while ((end = buf.indexOf('\n\n')) >= 0) {
        const frame = buf.slice(0, end);
        buf = buf.slice(end + 2);
        if (!frame.startsWith('id: ')) continue; // a comment (heartbeat)
        const nl = frame.indexOf('\n');
        const id = Number(frame.slice(4, nl));
        received.set(id, now);
        order.push(id);
        if (frame.startsWith('event: ', nl + 1)) {
          const nl2 = frame.indexOf('\n', nl + 1);
          sub.lastType = frame.slice(nl + 8, nl2);
          if (frame.startsWith('data: ', nl2 + 1)) sub.lastData = frame.slice(nl2 + 7);
        }
      }
    });
    res.on('end', onDone);
    res.on('error', onDone);
  });
  req.on('error', (err) => {
    sub.error = err.message;
    onConnected();
    onDone();
  });
  req.end(payload);
  const sub: Subscriber = { received, order, connected, done, close: () => req.destroy() };
  return sub;
}
