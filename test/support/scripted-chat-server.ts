/**
 * A scripted OpenAI Chat Completions server for tests: a real HTTP server on 127.0.0.1 (random
 * port) answering `POST /v1/chat/completions` with `stream: true` in the exact wire format —
 * `data: <chunk JSON>\n\n` frames (no `event:` lines) ended by `data: [DONE]\n\n` — so the real
 * `openai` SDK talks to it unchanged. Scripted like the Responses one (scripted-responses-server.ts).
 *
 * ```ts
 * const server = await startScriptedChatServer([
 *   { toolCalls: [chatCall('read_file', { path: 'a.txt' })] },       // request #0
 *   (body) => chatText(`saw ${body.messages.length} messages`),      // request #1
 * ]);
 * const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'test', maxRetries: 0 });
 * ```
 *
 * One entry answers one request, in order (an SDK retry consumes the next entry). When the script
 * is exhausted the server answers HTTP 500 `script_exhausted`. Kinds of step (chat-script.ts):
 * - output steps (`content`, `reasoning`, `toolCalls`, `finishReason`, `usage`) → generated chunks;
 * - `{ fixture: 'openai-text.chunks.txt' }` → a captured stream replayed line by line, unchanged;
 * - `{ cassette: 'pydantic-ai/x.yaml', interaction? }` → a recorded exchange of a VCR cassette, byte for byte;
 * - `{ data: [...] }` → raw frames as given;
 * - `{ httpError: { status, body } }` → a plain HTTP error (JSON body, `retry-after-ms` 1 ms).
 * Streaming steps take `delayMs`, `cutAfter` (+ `cutMode`), `holdMs` and `keepAlive` (SSE comment
 * lines before the first frame); an output step takes `done: false` to end without `[DONE]`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendKeepAlives, startScriptedHttpServer } from './scripted-http.js';
import {
  buildChatChunks,
  loadChatCassette,
  loadChatFixture,
  type ChatRequestBody,
  type ChatScriptEntry,
  type ChatScriptedStep,
  type ChatStreamingOptions,
} from './chat-script.js';

export * from './chat-script.js';

export interface RecordedChatRequest {
  index: number;
  url: string;
  headers: IncomingMessage['headers'];
  body: ChatRequestBody;
  rawBody: string;
}

export interface ScriptedChatServer {
  /** `http://127.0.0.1:<port>/v1` — the SDK's `baseURL`. */
  baseURL: string;
  /** Every request received, in order (including ones answered with errors). */
  requests: RecordedChatRequest[];
  push(...entries: ChatScriptEntry[]): void;
  remaining(): number;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const frame = (data: string) => `data: ${data}\n\n`;

async function writeFrames(res: ServerResponse, frames: string[], opts: ChatStreamingOptions): Promise<void> {
  if (opts.holdMs) await sleep(opts.holdMs);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  if (opts.keepAlive) await sendKeepAlives(res, opts.keepAlive);
  const limit = Math.min(opts.cutAfter ?? frames.length, frames.length);
  for (let i = 0; i < limit; i++) {
    if (opts.delayMs) await sleep(opts.delayMs);
    if (res.destroyed) return;
    res.write(frames[i]);
  }
  if (opts.cutAfter !== undefined && opts.cutAfter < frames.length && opts.cutMode === 'stall') {
    await new Promise<void>((resolve) => (res.destroyed ? resolve() : res.once('close', () => resolve())));
    return;
  }
  if (opts.cutAfter !== undefined && opts.cutAfter < frames.length && (opts.cutMode ?? 'destroy') === 'destroy') {
    await sleep(5);
    res.socket?.destroy();
    return;
  }
  res.end();
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

async function answer(res: ServerResponse, step: ChatScriptedStep, body: ChatRequestBody): Promise<void> {
  if ('httpError' in step) {
    const { status, body: errBody, headers, retryAfterMs } = step.httpError;
    const payload = errBody ?? { error: { message: `scripted HTTP ${status}`, type: 'server_error', param: null, code: null } };
    json(res, status, payload, { 'retry-after-ms': String(retryAfterMs ?? 1), ...headers });
    return;
  }
  if ('fixture' in step) {
    const frames = loadChatFixture(step.fixture).map(frame);
    if (step.done !== false) frames.push(frame('[DONE]'));
    await writeFrames(res, frames, step);
    return;
  }
  if ('cassette' in step) {
    const recorded = loadChatCassette(step.cassette, step.interaction ?? 0);
    res.writeHead(recorded.status, { 'content-type': recorded.contentType, 'cache-control': 'no-cache' });
    res.end(recorded.body);
    return;
  }
  if ('data' in step) {
    await writeFrames(res, step.data.map((d) => frame(typeof d === 'string' ? d : JSON.stringify(d))), step);
    return;
  }
  const frames = buildChatChunks(step, body).map((c) => frame(JSON.stringify(c)));
  if (step.done !== false) frames.push(frame('[DONE]'));
  await writeFrames(res, frames, step);
}

/** Start the server on 127.0.0.1 with a random port; `script` answers requests #0, #1, … */
export async function startScriptedChatServer(script: ChatScriptEntry[] = []): Promise<ScriptedChatServer> {
  return startScriptedHttpServer<ChatRequestBody, ChatScriptedStep>({ path: '/v1/chat/completions', script, answer });
}
