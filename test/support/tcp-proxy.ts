/**
 * A loopback TCP proxy in front of a real server, to take a dependency away and bring it back
 * (e.g. the database): `stop()` closes the listener and cuts every open connection (clients see
 * resets, then refused connections); `start()` listens again on the same port. `hang()` keeps every
 * connection open but forwards nothing in either direction (a hung network path: no reset, no
 * error — what is sent waits), new connections included; `resume()` delivers what was held, in
 * order, and forwards again.
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
  /** Hold all data in both directions (connections stay open) until {@link resume}. */
  hang(): void;
  /** Deliver the held data in order and forward again. */
  resume(): void;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let hung = false;
  /** Flushes of every connection's held data (run on resume). */
  const flushes = new Set<() => void>();
  /** Forward `from` → `to`, holding the data while hung. */
  const forward = (from: net.Socket, to: net.Socket) => {
    const held: Buffer[] = [];
    const flush = () => {
      while (!hung && held.length > 0) to.write(held.shift()!);
    };
    flushes.add(flush);
    from.on('data', (d: Buffer) => {
      held.push(d);
      flush();
    });
    from.on('close', () => flushes.delete(flush));
  };
  let server: net.Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        for (const x of [client, upstream]) {
          sockets.add(x);
          x.on('close', () => sockets.delete(x));
          x.on('error', () => undefined);
        }
        forward(client, upstream);
        forward(upstream, client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as net.AddressInfo).port;
        server = s;
        resolve();
      });
    });
  const stop = async () => {
    const s = server;
    server = undefined;
    for (const x of sockets) x.destroy();
    if (s) await new Promise<void>((r) => s.close(() => r()));
  };
  await listen();
  return {
    get port() { return port; },
    stop,
    start: listen,
    close: stop,
    hang: () => void (hung = true),
    resume: () => {
      hung = false;
      for (const f of flushes) f();
    },
  };
}
