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

export type ScriptedAnswer = number | 'hang' | { status: number; headers: Record<string, string> };

export interface Receiver {
  url: string;
  received: ReceivedDelivery[];
  /** Answers for the next requests, in order (then 200): a status, a status with headers, or `'hang'` (never answers). */
  script: ScriptedAnswer[];
  close(): Promise<void>;
}

export async function startReceiver(secret: string): Promise<Receiver> {
  const wh = new Webhook(secret);
  const received: ReceivedDelivery[] = [];
  const script: ScriptedAnswer[] = [];
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
      const status = next === 'hang' ? 0 : typeof next === 'number' ? next : next.status;
      received.push({ at: Date.now(), headers, body, verified, verifyError, answeredWith: status });
      if (next === 'hang') return;
      res.writeHead(status, { 'content-type': 'text/plain', ...(typeof next === 'object' ? next.headers : {}) }).end('ok');
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
