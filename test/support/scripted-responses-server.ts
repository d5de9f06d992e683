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
 *   `*.chunks.txt` file from /work/shared/fixtures/openai-responses/ byte-for-byte (one JSON per
 *   line, each sent as `data:`). Files with several back-to-back streams are split at each
 *   `response.created`; `stream` picks one (0-based, default 0).
 * - `{ events: [...] }` — send raw event objects as-is (no sequence numbers added).
 * - `{ httpError: { status: 429, body: {...} } }` — plain HTTP error (JSON body); `retry-after-ms`
 *   is set (default 1 ms) so the SDK's retries stay fast in tests.
 * - `{ streamError: { code, message } }` — 200 stream: created, in_progress, `error`, `response.failed`.
 *
 * Options on streaming steps: `delayMs` (pause before each event), `cutAfter` (send that many
 * events, then destroy the socket — a stream cut mid-way; `cutMode: 'end'` closes it cleanly
 * instead, i.e. no terminal event), `holdMs` (wait before the response headers are sent).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

/** Folder of the shared captured streams. */
export const FIXTURES_DIR = path.resolve(
  process.env.OPENAI_FIXTURES_DIR ?? '/work/shared/fixtures/openai-responses',
);

/** An assistant message with one output_text part. `chunks` overrides how the text is split into deltas. */
export interface ScriptedMessage {
  type: 'message';
  text: string;
  id?: string;
  chunks?: string[];
}

/** A function call. `arguments` is sent verbatim (may be malformed JSON). */
export interface ScriptedFunctionCall {
  type: 'function_call';
  name: string;
  arguments: string;
  /** call_id on `output_item.done` (the one that counts). Default `call_<n>`. */
  callId?: string;
  /** call_id on `output_item.added`, when it should differ (captures show it can). */
  addedCallId?: string;
  namespace?: string;
  id?: string;
  chunks?: string[];
}

/** A reasoning item; `encryptedContent` is echoed as `encrypted_content`. */
export interface ScriptedReasoning {
  type: 'reasoning';
  encryptedContent?: string;
  summary?: string[];
  id?: string;
}

export type ScriptedOutputItem = ScriptedMessage | ScriptedFunctionCall | ScriptedReasoning;

interface StreamingOptions {
  /** Pause before each event, ms. */
  delayMs?: number;
  /** Send only this many events, then cut the connection. */
  cutAfter?: number;
  /** `destroy` (default): reset the socket; `end`: close the body cleanly without a terminal event. */
  cutMode?: 'destroy' | 'end';
  /** Wait this long before sending the response headers, ms. */
  holdMs?: number;
}

export interface OutputStep extends StreamingOptions {
  output: ScriptedOutputItem[];
  status?: 'completed' | 'incomplete';
  /** For `status: 'incomplete'` (default `max_output_tokens`). */
  incompleteReason?: 'max_output_tokens' | 'content_filter';
  usage?: { input_tokens: number; output_tokens: number };
  responseId?: string;
}

export interface FixtureStep extends StreamingOptions {
  /** File name in {@link FIXTURES_DIR} (or an absolute path). */
  fixture: string;
  /** Which back-to-back stream of the file, 0-based. */
  stream?: number;
}

export interface RawEventsStep extends StreamingOptions {
  events: Record<string, unknown>[];
}

export interface HttpErrorStep {
  httpError: { status: number; body?: unknown; headers?: Record<string, string>; retryAfterMs?: number };
}

export interface StreamErrorStep extends StreamingOptions {
  streamError: { code: string; message: string; type?: string };
}

export type ScriptedStep = OutputStep | FixtureStep | RawEventsStep | HttpErrorStep | StreamErrorStep;

/** The JSON body the SDK posted (shape of `ResponseCreateParams`, loosely typed for assertions). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ResponsesRequestBody = Record<string, any>;

export type ScriptEntry =
  | ScriptedStep
  | ((body: ResponsesRequestBody, index: number) => ScriptedStep | Promise<ScriptedStep>);

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
// Builders

/** Assistant text. */
export function message(text: string, extra: Partial<Omit<ScriptedMessage, 'type' | 'text'>> = {}): ScriptedMessage {
  return { type: 'message', text, ...extra };
}

/** A function call; `args` may be an object (JSON-encoded) or a raw (possibly broken) string. */
export function functionCall(
  name: string,
  args: string | Record<string, unknown>,
  extra: Partial<Omit<ScriptedFunctionCall, 'type' | 'name' | 'arguments'>> = {},
): ScriptedFunctionCall {
  return { type: 'function_call', name, arguments: typeof args === 'string' ? args : JSON.stringify(args), ...extra };
}

/** A reasoning item with encrypted content. */
export function reasoning(encryptedContent: string, summary: string[] = [], extra: { id?: string } = {}): ScriptedReasoning {
  return { type: 'reasoning', encryptedContent, summary, ...extra };
}

// ---------------------------------------------------------------------------------------------
// Fixtures

/** Read a `*.chunks.txt` file and split it into streams (a new stream starts at each `response.created`). */
export function loadFixtureStreams(file: string): string[][] {
  const full = path.isAbsolute(file) ? file : path.join(FIXTURES_DIR, file);
  const lines = readFileSync(full, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const streams: string[][] = [];
  for (const line of lines) {
    const type = (JSON.parse(line) as { type?: string }).type;
    if (type === 'response.created' || streams.length === 0) streams.push([]);
    streams[streams.length - 1].push(line);
  }
  return streams;
}

// ---------------------------------------------------------------------------------------------
// Event generation

let responseCounter = 0;

function splitText(text: string): string[] {
  if (text === '') return [];
  const parts = text.match(/\s*\S+|\s+$/g);
  return parts ?? [text];
}

function splitArgs(args: string): string[] {
  if (args === '') return [];
  const out: string[] = [];
  for (let i = 0; i < args.length; i += 8) out.push(args.slice(i, i + 8));
  return out;
}

function baseResponse(id: string, body: ResponsesRequestBody, status: string, output: unknown[], extra: Record<string, unknown> = {}) {
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model ?? 'scripted-model',
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: body.reasoning ?? { effort: null, summary: null },
    store: body.store ?? true,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: 1,
    truncation: 'disabled',
    usage: null,
    metadata: {},
    ...extra,
  };
}

/** Build the exact event sequence (without sequence numbers) for an output step. */
export function buildOutputEvents(step: OutputStep, body: ResponsesRequestBody): Record<string, unknown>[] {
  const respId = step.responseId ?? `resp_scripted_${++responseCounter}`;
  const events: Record<string, unknown>[] = [];
  events.push({ type: 'response.created', response: baseResponse(respId, body, 'in_progress', []) });
  events.push({ type: 'response.in_progress', response: baseResponse(respId, body, 'in_progress', []) });
  const done: unknown[] = [];
  step.output.forEach((item, outputIndex) => {
    if (item.type === 'message') {
      const id = item.id ?? `msg_${respId}_${outputIndex}`;
      events.push({ type: 'response.output_item.added', output_index: outputIndex, item: { id, type: 'message', status: 'in_progress', content: [], role: 'assistant' } });
      events.push({ type: 'response.content_part.added', item_id: id, output_index: outputIndex, content_index: 0, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } });
      for (const delta of item.chunks ?? splitText(item.text)) {
        events.push({ type: 'response.output_text.delta', item_id: id, output_index: outputIndex, content_index: 0, delta, logprobs: [] });
      }
      events.push({ type: 'response.output_text.done', item_id: id, output_index: outputIndex, content_index: 0, text: item.text, logprobs: [] });
      const part = { type: 'output_text', annotations: [], logprobs: [], text: item.text };
      events.push({ type: 'response.content_part.done', item_id: id, output_index: outputIndex, content_index: 0, part });
      const finalItem = { id, type: 'message', status: 'completed', content: [part], role: 'assistant' };
      events.push({ type: 'response.output_item.done', output_index: outputIndex, item: finalItem });
      done.push(finalItem);
    } else if (item.type === 'function_call') {
      const id = item.id ?? `fc_${respId}_${outputIndex}`;
      const callId = item.callId ?? `call_${respId}_${outputIndex}`;
      const ns = item.namespace !== undefined ? { namespace: item.namespace } : {};
      events.push({ type: 'response.output_item.added', output_index: outputIndex, item: { id, type: 'function_call', status: 'in_progress', arguments: '', call_id: item.addedCallId ?? callId, name: item.name, ...ns } });
      for (const delta of item.chunks ?? splitArgs(item.arguments)) {
        events.push({ type: 'response.function_call_arguments.delta', item_id: id, output_index: outputIndex, delta });
      }
      events.push({ type: 'response.function_call_arguments.done', item_id: id, output_index: outputIndex, arguments: item.arguments });
      const finalItem = { id, type: 'function_call', status: 'completed', arguments: item.arguments, call_id: callId, name: item.name, ...ns };
      events.push({ type: 'response.output_item.done', output_index: outputIndex, item: finalItem });
      done.push(finalItem);
    } else {
      const id = item.id ?? `rs_${respId}_${outputIndex}`;
      const enc = item.encryptedContent !== undefined ? { encrypted_content: item.encryptedContent } : {};
      events.push({ type: 'response.output_item.added', output_index: outputIndex, item: { id, type: 'reasoning', ...enc, summary: [] } });
      const summary = item.summary ?? [];
      summary.forEach((text, summaryIndex) => {
        events.push({ type: 'response.reasoning_summary_part.added', item_id: id, output_index: outputIndex, summary_index: summaryIndex, part: { type: 'summary_text', text: '' } });
        events.push({ type: 'response.reasoning_summary_text.delta', item_id: id, output_index: outputIndex, summary_index: summaryIndex, delta: text });
        events.push({ type: 'response.reasoning_summary_text.done', item_id: id, output_index: outputIndex, summary_index: summaryIndex, text });
        events.push({ type: 'response.reasoning_summary_part.done', item_id: id, output_index: outputIndex, summary_index: summaryIndex, part: { type: 'summary_text', text } });
      });
      const finalItem = { id, type: 'reasoning', ...enc, summary: summary.map((text) => ({ type: 'summary_text', text })) };
      events.push({ type: 'response.output_item.done', output_index: outputIndex, item: finalItem });
      done.push(finalItem);
    }
  });
  const usage = step.usage ?? { input_tokens: 10, output_tokens: 5 };
  const fullUsage = {
    input_tokens: usage.input_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.input_tokens + usage.output_tokens,
  };
  if (step.status === 'incomplete') {
    events.push({
      type: 'response.incomplete',
      response: baseResponse(respId, body, 'incomplete', done, {
        incomplete_details: { reason: step.incompleteReason ?? 'max_output_tokens' },
        usage: fullUsage,
      }),
    });
  } else {
    events.push({ type: 'response.completed', response: baseResponse(respId, body, 'completed', done, { usage: fullUsage }) });
  }
  return events;
}

function streamErrorEvents(step: StreamErrorStep, body: ResponsesRequestBody): Record<string, unknown>[] {
  const respId = `resp_scripted_${++responseCounter}`;
  const { code, message: msg, type } = step.streamError;
  return [
    { type: 'response.created', response: baseResponse(respId, body, 'in_progress', []) },
    { type: 'response.in_progress', response: baseResponse(respId, body, 'in_progress', []) },
    { type: 'error', error: { type: type ?? code, code, message: msg, param: null } },
    { type: 'response.failed', response: baseResponse(respId, body, 'failed', [], { error: { code, message: msg } }) },
  ];
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
  const limit = opts.cutAfter ?? frames.length;
  for (let i = 0; i < Math.min(limit, frames.length); i++) {
    if (opts.delayMs) await sleep(opts.delayMs);
    if (res.destroyed) return;
    res.write(frames[i]);
  }
  if (opts.cutAfter !== undefined && opts.cutAfter < frames.length) {
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

function eventsToFrames(events: Record<string, unknown>[], addSequence: boolean): string[] {
  return events.map((e, i) => {
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

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Start the server on 127.0.0.1 with a random port.
 * @param script entries answering requests #0, #1, … in order.
 */
export async function startScriptedResponsesServer(script: ScriptEntry[] = []): Promise<ScriptedResponsesServer> {
  const queue: ScriptEntry[] = [...script];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();

  const server: Server = createServer(async (req, res) => {
    try {
      const raw = await readBody(req);
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/responses')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error', code: 'not_found', param: null } }));
        return;
      }
      let body: ResponsesRequestBody;
      try {
        body = JSON.parse(raw) as ResponsesRequestBody;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'body is not JSON', type: 'invalid_request_error', code: null, param: null } }));
        return;
      }
      const index = requests.length;
      requests.push({ index, method: req.method, url: req.url, headers: req.headers, body, rawBody: raw });
      const entry = queue.shift();
      if (entry === undefined) {
        res.writeHead(500, { 'content-type': 'application/json', 'x-should-retry': 'false' });
        res.end(JSON.stringify({ error: { message: `scripted server: no script entry for request #${index}`, type: 'server_error', code: 'script_exhausted', param: null } }));
        return;
      }
      const step = typeof entry === 'function' ? await entry(body, index) : entry;
      await answer(res, step, body);
    } catch (err) {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json', 'x-should-retry': 'false' });
        res.end(JSON.stringify({ error: { message: `scripted server failure: ${(err as Error).message}`, type: 'server_error', code: 'script_error', param: null } }));
      } else {
        res.destroy();
      }
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
