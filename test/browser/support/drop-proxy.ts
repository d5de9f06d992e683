/**
 * A TCP proxy on 127.0.0.1 in front of the service, so a test can break the network under a live
 * page: `dropAll()` resets every client connection — the SSE stream and idle keep-alive ones, so
 * a reconnect must open a new connection (what a flaky network or a restarting proxy does), and `hold()` makes new connections wait (not
 * refused, not forwarded) until `release()` — so events can happen while the page is away.
 */
import net, { type AddressInfo, type Socket } from 'node:net';

export interface DropProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Reset every client connection. Returns how many carried an events request. */
  dropAll(): number;
  /** Park new connections until {@link release}. */
  hold(): void;
  release(): void;
  /** Number of `GET …/events` requests seen so far (each EventSource (re)connect is one). */
  eventRequests(): number;
  /** The `Last-Event-ID` header of each events request, in order (null when absent). */
  lastEventIds(): (string | null)[];
  /** The request target (path and query) of each events request, in order. */
  eventTargets(): string[];
  close(): Promise<void>;
}

export async function startDropProxy(targetPort: number): Promise<DropProxy> {
  const streams = new Set<Socket>();
  const all = new Set<Socket>();
  let held: (() => void)[] | null = null;
  let eventRequests = 0;
  const lastEventIds: (string | null)[] = [];
  const eventTargets: string[] = [];

  const server = net.createServer((client) => {
    all.add(client);
    client.on('close', () => {
      all.delete(client);
      streams.delete(client);
    });
    client.on('error', () => undefined);
    const connect = () => {
      if (client.destroyed) return;
      const upstream = net.connect(targetPort, '127.0.0.1');
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.on('data', (chunk: Buffer) => {
        // Look at request lines (keep-alive may carry several requests on one socket).
        const head = chunk.toString('latin1', 0, Math.min(chunk.length, 2048));
        for (const m of head.matchAll(/(?:^|\r\n)GET (\S+\/events(?:\?\S*)?) HTTP\/1\.[01]\r\n((?:[^\r\n]+\r\n)*)/g)) {
          eventRequests += 1;
          eventTargets.push(m[1]);
          streams.add(client);
          lastEventIds.push(/^last-event-id:\s*(\S*)\s*$/im.exec(m[2] ?? '')?.[1] ?? null);
        }
      });
      client.pipe(upstream);
      upstream.pipe(client);
    };
    if (held) held.push(connect);
    else connect();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const proxy: DropProxy = {
    url: `http://127.0.0.1:${port}`,
    port,
    dropAll() {
      const n = streams.size;
      for (const s of all) s.resetAndDestroy();
      streams.clear();
      return n;
    },
    hold() {
      held ??= [];
    },
    release() {
      const waiting = held ?? [];
      held = null;
      for (const go of waiting) go();
    },
    eventRequests: () => eventRequests,
    lastEventIds: () => [...lastEventIds],
    eventTargets: () => [...eventTargets],
    async close() {
      proxy.release();
      for (const s of all) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
