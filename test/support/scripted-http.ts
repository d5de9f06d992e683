/**
 * The HTTP side shared by the scripted model servers (scripted-responses-server.ts,
 * scripted-chat-server.ts): a real server on 127.0.0.1 (random port) that takes `POST <path>`
 * with a JSON body, records every request, and answers request #k with script entry #k. Outside
 * the route → 404, a body that is not JSON → 400, an exhausted script → 500 `script_exhausted`,
 * a throwing entry → 500 `script_error` (or a reset connection once headers went out) — each with
 * the OpenAI error envelope and `x-should-retry: false` where the SDK must not retry.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as received. */
export interface RecordedScriptedRequest<Body> {
  index: number;
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Body;
  /** The body exactly as received (for byte-for-byte assertions). */
  rawBody: string;
}

/** A script entry: a step, or a function of the request body and index that returns one. */
export type ScriptedEntry<Body, Step> = Step | ((body: Body, index: number) => Step | Promise<Step>);

export interface ScriptedHttpServer<Body, Step> {
  /** `http://127.0.0.1:<port>/v1` — the SDK's `baseURL`. */
  baseURL: string;
  port: number;
  /** Every request received, in order (including ones answered with errors). */
  requests: RecordedScriptedRequest<Body>[];
  /** Append script entries. */
  push(...entries: ScriptedEntry<Body, Step>[]): void;
  /** Script entries not consumed yet. */
  remaining(): number;
  close(): Promise<void>;
}

/** Write an OpenAI-style error envelope. */
export function sendError(res: ServerResponse, status: number, message: string, type: string, code: string | null, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ error: { message, type, code, param: null } }));
}

/**
 * Write SSE comment lines (`: <comment>\n\n`, keep-alives as OpenRouter sends them) every `everyMs`
 * for `forMs` in all, the first one at once; stops early when the client has gone.
 */
export async function sendKeepAlives(res: ServerResponse, opts: { comment: string; everyMs: number; forMs: number }): Promise<void> {
  const end = Date.now() + opts.forMs;
  while (!res.destroyed && Date.now() < end) {
    res.write(`: ${opts.comment}\n\n`);
    await new Promise<void>((r) => setTimeout(r, Math.min(opts.everyMs, Math.max(0, end - Date.now()))));
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Start a scripted server for `POST <path>…` (e.g. `/v1/responses`).
 * @param answer writes the response for one step (`step` is the entry, resolved when a function).
 */
export async function startScriptedHttpServer<Body, Step>(opts: {
  path: string;
  script: ScriptedEntry<Body, Step>[];
  answer: (res: ServerResponse, step: Step, body: Body) => Promise<void>;
}): Promise<ScriptedHttpServer<Body, Step>> {
  const queue = [...opts.script];
  const requests: RecordedScriptedRequest<Body>[] = [];
  const sockets = new Set<Socket>();
  const noRetry = { 'x-should-retry': 'false' };
  const server = createServer(async (req, res) => {
    try {
      const raw = await readBody(req);
      if (req.method !== 'POST' || !req.url?.startsWith(opts.path)) {
        sendError(res, 404, `no route ${req.method} ${req.url}`, 'invalid_request_error', 'not_found');
        return;
      }
      let body: Body;
      try {
        body = JSON.parse(raw) as Body;
      } catch {
        sendError(res, 400, 'body is not JSON', 'invalid_request_error', null);
        return;
      }
      const index = requests.length;
      requests.push({ index, method: req.method, url: req.url, headers: req.headers, body, rawBody: raw });
      const entry = queue.shift();
      if (entry === undefined) {
        sendError(res, 500, `scripted server: no script entry for request #${index}`, 'server_error', 'script_exhausted', noRetry);
        return;
      }
      const step = typeof entry === 'function' ? await (entry as (b: Body, i: number) => Step | Promise<Step>)(body, index) : entry;
      await opts.answer(res, step, body);
    } catch (err) {
      if (!res.headersSent) sendError(res, 500, `scripted server failure: ${(err as Error).message}`, 'server_error', 'script_error', noRetry);
      else res.destroy();
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    push: (...entries) => queue.push(...entries),
    remaining: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
