/**
 * A scripted OpenAI Responses API server for tests: a real HTTP server on 127.0.0.1 (random port)
 * answering `POST /v1/responses` with `stream: true` in the Responses streaming SSE wire format
 * (`event: <type>` + `data: <json>` per event, `sequence_number` from 0), so the real `openai`
 * SDK 6.x can talk to it unchanged.
 *
 * Quick start:
 * ```ts
 * const server = await startScriptedResponsesServer([
 *   { output: [functionCall('read_file', '{"path":"a.txt"}')] },          // request #0
 *   (body, i) => ({ output: [message(`saw ${body.input.length} items`)] }), // request #1
 * ]);
 * const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'test', maxRetries: 0 });
 * // ... run the turn ...
 * expect(server.requests[1].body.tools).toEqual([...]);
 * await server.close();
 * ```
 *
 * One script entry answers one HTTP request, in order (an SDK retry after a 429/500 consumes the
 * next entry). An entry is a {@link ScriptedStep} or a function `(requestBody, index) => step` that
 * can look at what the model received. When the script is exhausted the server answers HTTP 500
 * with `{error:{code:"script_exhausted"}}` (and the request is still recorded), so a test whose
 * loop makes one request too many fails loudly. More entries can be appended with `server.push()`.
 *
 * Kinds of step (see {@link ScriptedStep}):
 * - `{ output: [...items] }` — stream those output items: {@link message}, {@link functionCall}
 *   (arguments are sent as given, so they may be malformed), {@link reasoning} (with
 *   `encrypted_content`); `status: 'incomplete'` with `incompleteReason` ends with
 *   `response.incomplete`; `usage` sets token counts.
 * - `{ fixture: 'openai-reasoning-encrypted-content.1.chunks.txt', stream: 2 }` — replay a captured
 *   `*.chunks.txt` capture from ../shared/fixtures/openai-responses/
 *   byte-for-byte, unmodified (one JSON per
 *   line, each sent as `data:`). Files with several back-to-back streams are split at each
 *   `response.created`; `stream` picks one (0-based, default 0).
 * - `{ events: [...] }` — send raw event objects as-is (no sequence numbers added); a string is
 *   sent as a bare `data:` frame (no `event:` line).
 * - `{ httpError: { status: 429, body: {...} } }` — plain HTTP error (JSON body); `retry-after-ms`
 *   is set (default 1 ms) so the SDK's retries stay fast in tests.
 * - `{ streamError: { code, message } }` — 200 stream: created, in_progress, `error`, `response.failed`.
 *
 * Options on streaming steps: `delayMs` (pause before each event), `cutAfter` (send that many
 * events, then destroy the socket — a stream cut mid-way; `cutMode: 'end'` closes it cleanly
 * instead, i.e. no terminal event; `cutMode: 'stall'` keeps it open, sending nothing), `holdMs` (wait before the response headers are sent),
 * `keepAlive` (SSE comment lines every `everyMs` for `forMs` after the headers, before the first event).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendKeepAlives, startScriptedHttpServer } from './scripted-http.js';
import {
  buildOutputEvents,
  loadFixtureStreams,
  streamErrorEvents,
  type ResponsesRequestBody,
  type ScriptEntry,
  type ScriptedStep,
  type StreamingOptions,
} from './responses-script.js';

export * from './responses-script.js';

export interface RecordedRequest {
  index: number;
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: ResponsesRequestBody;
  /** The body exactly as received (for byte-for-byte assertions). */
  rawBody: string;
}

export interface ScriptedResponsesServer {
  /** `http://127.0.0.1:<port>/v1` — pass as the SDK's `baseURL`. */
  baseURL: string;
  port: number;
  /** Every request received, in order (including ones answered with errors). */
  requests: RecordedRequest[];
  /** Append script entries. */
  push(...entries: ScriptEntry[]): void;
  /** Script entries not consumed yet. */
  remaining(): number;
  close(): Promise<void>;
}


// ---------------------------------------------------------------------------------------------
// Server

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function sseFrame(type: string, data: string): string {
  return `event: ${type}\ndata: ${data}\n\n`;
}

async function writeStream(res: ServerResponse, frames: string[], opts: StreamingOptions): Promise<void> {
  if (opts.holdMs) await sleep(opts.holdMs);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-request-id': `req_scripted_${Date.now()}`,
  });
  if (typeof res.flushHeaders === 'function') res.flushHeaders();
  if (opts.keepAlive) await sendKeepAlives(res, opts.keepAlive);
  const limit = opts.cutAfter ?? frames.length;
  for (let i = 0; i < Math.min(limit, frames.length); i++) {
    if (opts.delayMs) await sleep(opts.delayMs);
    if (res.destroyed) return;
    res.write(frames[i]);
  }
  if (opts.cutAfter !== undefined && opts.cutAfter < frames.length) {
    if (opts.cutMode === 'stall') {
      await new Promise<void>((resolve) => (res.destroyed ? resolve() : res.once('close', () => resolve())));
      return;
    }
    if ((opts.cutMode ?? 'destroy') === 'destroy') {
      // Give the written frames a moment to reach the client, then reset the connection.
      await sleep(5);
      res.socket?.destroy();
    } else {
      res.end();
    }
    return;
  }
  res.end();
}

function eventsToFrames(events: (Record<string, unknown> | string)[], addSequence: boolean): string[] {
  return events.map((e, i) => {
    if (typeof e === 'string') return `data: ${e}\n\n`;
    const ev = addSequence ? { ...e, sequence_number: i } : e;
    return sseFrame(String(ev.type), JSON.stringify(ev));
  });
}

async function answer(res: ServerResponse, step: ScriptedStep, body: ResponsesRequestBody): Promise<void> {
  if ('httpError' in step) {
    const { status, body: errBody, headers, retryAfterMs } = step.httpError;
    const payload = errBody ?? { error: { message: `scripted HTTP ${status}`, type: 'server_error', param: null, code: null } };
    res.writeHead(status, {
      'content-type': 'application/json',
      'retry-after-ms': String(retryAfterMs ?? 1),
      ...headers,
    });
    res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
    return;
  }
  if ('fixture' in step) {
    const streams = loadFixtureStreams(step.fixture);
    const lines = streams[step.stream ?? 0];
    if (!lines) throw new Error(`fixture ${step.fixture} has ${streams.length} streams, asked for #${step.stream}`);
    // Replay unchanged: the original line is the data payload; event name from its `type`.
    const frames = lines.map((line) => sseFrame((JSON.parse(line) as { type: string }).type, line));
    await writeStream(res, frames, step);
    return;
  }
  if ('events' in step) {
    await writeStream(res, eventsToFrames(step.events, false), step);
    return;
  }
  if ('streamError' in step) {
    await writeStream(res, eventsToFrames(streamErrorEvents(step, body), true), step);
    return;
  }
  await writeStream(res, eventsToFrames(buildOutputEvents(step, body), true), step);
}

/**
 * Start the server on 127.0.0.1 with a random port.
 * @param script entries answering requests #0, #1, … in order.
 */
export async function startScriptedResponsesServer(script: ScriptEntry[] = []): Promise<ScriptedResponsesServer> {
  return startScriptedHttpServer<ResponsesRequestBody, ScriptedStep>({ path: '/v1/responses', script, answer });
}
