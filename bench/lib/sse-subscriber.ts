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
  /** Resolves when the server ends the stream. */
  done: Promise<void>;
  close(): void;
}

/** Subscribe to `url` (a `text/event-stream` endpoint). */
export function subscribe(url: string, agent: http.Agent): Subscriber {
  const received = new Map<number, number>();
  const order: number[] = [];
  let onConnected!: () => void;
  let onDone!: () => void;
  const connected = new Promise<void>((r) => (onConnected = r));
  const done = new Promise<void>((r) => (onDone = r));
  const req = http.get(url, { agent, headers: { accept: 'text/event-stream' } }, (res) => {
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
        const id = Number(frame.slice(4, frame.indexOf('\n')));
        received.set(id, now);
        order.push(id);
      }
    });
    res.on('end', onDone);
    res.on('error', onDone);
  });
  req.on('error', () => {
    onConnected();
    onDone();
  });
  return { received, order, connected, done, close: () => req.destroy() };
}
