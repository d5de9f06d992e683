/**
 * The script language of the scripted Responses API server (see scripted-responses-server.ts):
 * step and output-item types, builders (`message`, `functionCall`, `reasoning`), fixture loading,
 * and `buildOutputEvents`, which turns an output step into the exact Responses streaming event
 * sequence (without sequence numbers). Also used by the in-process model (in-process-model.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Folder of the captured OpenAI Responses streams: the shared, unmodified captures in
 * `../shared/fixtures/openai-responses/` beside the repository checkout (vercel/ai, Apache-2.0;
 * see SOURCES.md there). CI lays `../shared` beside its clone, so tests replay them in place.
 * `OPENAI_FIXTURES_DIR` overrides it.
 */
export const FIXTURES_DIR = path.resolve(
  process.env.OPENAI_FIXTURES_DIR ??
    path.join(import.meta.dirname, '..', '..', '..', 'shared', 'fixtures', 'openai-responses'),
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
  /** call_id on `output_item.done` (the one that counts). Default `call_<n>`; null: no call_id at all. */
  callId?: string | null;
  /**
   * Send this value as `arguments` on `output_item.done` / `arguments.done` instead of the string
   * (e.g. a JSON object, as some OpenAI-compatible servers do); no argument deltas are sent.
   */
  argumentsValue?: unknown;
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

export interface StreamingOptions {
  /** Pause before each event, ms. */
  delayMs?: number;
  /** Send only this many events, then cut the connection. */
  cutAfter?: number;
  /**
   * `destroy` (default): reset the socket; `end`: close the body cleanly without a terminal event;
   * `stall`: send nothing more but keep the connection open until the client closes it.
   */
  cutMode?: 'destroy' | 'end' | 'stall';
  /** Wait this long before sending the response headers, ms. */
  holdMs?: number;
  /**
   * After the response headers, send SSE comment lines (`: <comment>`) every `everyMs` for `forMs`
   * (or until the client closes), then the events.
   */
  keepAlive?: { comment: string; everyMs: number; forMs: number };
}

export interface OutputStep extends StreamingOptions {
  output: ScriptedOutputItem[];
  status?: 'completed' | 'incomplete';
  /** For `status: 'incomplete'` (default `max_output_tokens`). */
  incompleteReason?: 'max_output_tokens' | 'content_filter';
  /** Token counts [10 in / 5 out]; any JSON value, to script a garbled report (`null`, `"abc"`). */
  usage?: { input_tokens: unknown; output_tokens: unknown };
  responseId?: string;
}

export interface FixtureStep extends StreamingOptions {
  /** File name in {@link FIXTURES_DIR} (or an absolute path). */
  fixture: string;
  /** Which back-to-back stream of the file, 0-based. */
  stream?: number;
}

export interface RawEventsStep extends StreamingOptions {
  /**
   * Events sent as given: an object as `event: <its type>` + `data: <its JSON>`; a string as a
   * bare `data: <string>` frame without an `event:` line (as servers that do not name their events send them).
   */
  events: (Record<string, unknown> | string)[];
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
      const callId = item.callId === null ? undefined : (item.callId ?? `call_${respId}_${outputIndex}`);
      const ids = (value: string | undefined) => (value === undefined ? {} : { call_id: value });
      const ns = item.namespace !== undefined ? { namespace: item.namespace } : {};
      const args = 'argumentsValue' in item ? item.argumentsValue : item.arguments;
      events.push({ type: 'response.output_item.added', output_index: outputIndex, item: { id, type: 'function_call', status: 'in_progress', arguments: '', ...ids(item.addedCallId ?? callId), name: item.name, ...ns } });
      for (const delta of 'argumentsValue' in item ? [] : (item.chunks ?? splitArgs(item.arguments))) {
        events.push({ type: 'response.function_call_arguments.delta', item_id: id, output_index: outputIndex, delta });
      }
      events.push({ type: 'response.function_call_arguments.done', item_id: id, output_index: outputIndex, arguments: args });
      const finalItem = { id, type: 'function_call', status: 'completed', arguments: args, ...ids(callId), name: item.name, ...ns };
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
    total_tokens: typeof usage.input_tokens === 'number' && typeof usage.output_tokens === 'number' ? usage.input_tokens + usage.output_tokens : null,
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

export function streamErrorEvents(step: StreamErrorStep, body: ResponsesRequestBody): Record<string, unknown>[] {
  const respId = `resp_scripted_${++responseCounter}`;
  const { code, message: msg, type } = step.streamError;
  return [
    { type: 'response.created', response: baseResponse(respId, body, 'in_progress', []) },
    { type: 'response.in_progress', response: baseResponse(respId, body, 'in_progress', []) },
    { type: 'error', error: { type: type ?? code, code, message: msg, param: null } },
    { type: 'response.failed', response: baseResponse(respId, body, 'failed', [], { error: { code, message: msg } }) },
  ];
}
