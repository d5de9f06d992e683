/**
 * A webhook receiver for tests: a real HTTP server on loopback that verifies every delivery with
 * the reference `standardwebhooks` library and answers with the next scripted status (default 200).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedDelivery {
  at: number;
  headers: Record<string, string>;
  body: string;
  /** The payload as `Webhook.verify` returned it, or undefined when verification failed. */
  verified: any;
  verifyError?: string;
  answeredWith: number;
}

export interface Receiver {
  url: string;
  received: ReceivedDelivery[];
  /** Statuses for the next requests, in order (then 200). `'hang'` never answers. */
  script: (number | 'hang')[];
  close(): Promise<void>;
}

export async function startReceiver(secret: string): Promise<Receiver> {
  const wh = new Webhook(secret);
  const received: ReceivedDelivery[] = [];
  const script: (number | 'hang')[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      let verified: unknown;
      let verifyError: string | undefined;
      try {
        verified = wh.verify(body, headers);
      } catch (err) {
        verifyError = (err as Error).message;
      }
      const next = script.shift() ?? 200;
      received.push({ at: Date.now(), headers, body, verified, verifyError, answeredWith: next === 'hang' ? 0 : next });
      if (next === 'hang') return;
      res.writeHead(next, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/turns`,
    received,
    script,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
