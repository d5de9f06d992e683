/**
 * The script language of the scripted Chat Completions server (scripted-chat-server.ts): step
 * types, builders (`chatText`, `chatCall`) and `buildChatChunks`, which turns an output step into
 * the `chat.completion.chunk` objects a real server streams (OpenAI's shape: a first chunk with
 * `role`, content / reasoning / tool-call deltas, a chunk with `finish_reason`, then — when the
 * request asked for `stream_options.include_usage` — a usage chunk with `choices: []`).
 *
 * Tool-call quirks of real servers are scriptable per call (see {@link ScriptedChatCall}): the id
 * repeated in every chunk, a forced `index` (e.g. every call at index 0), no id at all, arguments
 * only in the last chunk, or the whole call in one chunk.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

/** Captured Chat Completions streams, unmodified (see SOURCES.md there). */
export const CHAT_FIXTURES_DIR = path.join(import.meta.dirname, '..', 'fixtures', 'chat-completions');

/** One scripted tool call. */
export interface ScriptedChatCall {
  name: string;
  /** Sent verbatim (may be malformed JSON). */
  arguments: string;
  /** Call id; `null` sends none at all. Default `call_<k>` (k = position in the response). */
  id?: string | null;
  /** `index` on its deltas; default its position. Give every call 0 to mimic servers that do. */
  index?: number;
  /** How `arguments` is split into deltas [8-character pieces]. */
  chunks?: string[];
  /** Repeat the id (and type) on every delta of this call, not only the first. */
  repeatId?: boolean;
  /** `args-last`: the first delta has the name and no arguments, the last has all of them. `one-chunk`: name and arguments in one delta. */
  style?: 'split' | 'args-last' | 'one-chunk';
}

export interface ChatStreamingOptions {
  /** Pause before each frame, ms. */
  delayMs?: number;
  /** Send only this many frames (chunks; `[DONE]` counts as one), then cut the connection. */
  cutAfter?: number;
  /**
   * `destroy` (default): reset the socket; `end`: close the body cleanly; `stall`: send nothing
   * more but keep the connection open until the client closes it.
   */
  cutMode?: 'destroy' | 'end' | 'stall';
  /** Wait this long before sending the response headers, ms. */
  holdMs?: number;
  /**
   * After the response headers, send SSE comment lines (`: <comment>`, e.g. OpenRouter's
   * `OPENROUTER PROCESSING`) every `everyMs` for `forMs` (or until the client closes), then the frames.
   */
  keepAlive?: { comment: string; everyMs: number; forMs: number };
}

export interface ChatOutputStep extends ChatStreamingOptions {
  /** Assistant text (omitted: none). */
  content?: string;
  /** How `content` is split into deltas [words]. */
  contentChunks?: string[];
  /** Reasoning text, streamed before the content. */
  reasoning?: string;
  /** Which delta field carries reasoning [reasoning_content]. */
  reasoningField?: 'reasoning_content' | 'reasoning';
  toolCalls?: ScriptedChatCall[];
  /** Default: `tool_calls` when there are calls, else `stop`. `null`: no finish_reason at all. */
  finishReason?: 'stop' | 'tool_calls' | 'length' | 'content_filter' | null;
  /** Token counts; `null` sends no usage even when asked. Default 10 in / 5 out. */
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  /** Put usage on the finish chunk instead of a separate `choices: []` chunk. */
  usageOnFinishChunk?: boolean;
  /** End with `data: [DONE]` [true]; false: the body just ends after the last chunk. */
  done?: boolean;
}

export interface ChatFixtureStep extends ChatStreamingOptions {
  /** A `*.chunks.txt` file in {@link CHAT_FIXTURES_DIR} (one chunk JSON per line), replayed unchanged as `data:` frames. */
  fixture: string;
  /** End with `data: [DONE]` [true]. */
  done?: boolean;
}

/**
 * A recorded HTTP exchange from a VCR-style cassette (YAML, `interactions[].response`) kept unmodified
 * under {@link CHAT_FIXTURES_DIR}: the recorded status, content type and body are sent byte for byte
 * — `data:` frames, `: comment` keep-alives, `event: error` frames and `[DONE]` exactly as the real
 * server sent them.
 */
export interface ChatCassetteStep {
  /** Path of the cassette relative to {@link CHAT_FIXTURES_DIR}, e.g. `pydantic-ai/x.yaml`. */
  cassette: string;
  /** Which recorded exchange to answer with [0]. */
  interaction?: number;
}

export interface ChatRawStep extends ChatStreamingOptions {
  /** Frames' data payloads: objects are JSON-encoded, strings sent as they are (e.g. `[DONE]`). */
  data: (Record<string, unknown> | string)[];
}

export interface ChatHttpErrorStep {
  httpError: { status: number; body?: unknown; headers?: Record<string, string>; retryAfterMs?: number };
}

export type ChatScriptedStep = ChatOutputStep | ChatFixtureStep | ChatCassetteStep | ChatRawStep | ChatHttpErrorStep;

/** The JSON body the SDK posted (loosely typed for assertions). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ChatRequestBody = Record<string, any>;

export type ChatScriptEntry = ChatScriptedStep | ((body: ChatRequestBody, index: number) => ChatScriptedStep | Promise<ChatScriptedStep>);

/** A text answer. */
export function chatText(content: string, extra: Omit<ChatOutputStep, 'content'> = {}): ChatOutputStep {
  return { content, ...extra };
}

/** A tool call; `args` may be an object (JSON-encoded) or a raw (possibly broken) string. */
export function chatCall(name: string, args: string | Record<string, unknown>, extra: Omit<ScriptedChatCall, 'name' | 'arguments'> = {}): ScriptedChatCall {
  return { name, arguments: typeof args === 'string' ? args : JSON.stringify(args), ...extra };
}

/** Read a `*.chunks.txt` capture: its non-empty lines, unchanged. */
export function loadChatFixture(file: string): string[] {
  const full = path.isAbsolute(file) ? file : path.join(CHAT_FIXTURES_DIR, file);
  return readFileSync(full, 'utf8').split('\n').filter((l) => l.trim() !== '');
}

/** A recorded response of a cassette: status, content type and the exact body text. */
export interface CassetteResponse {
  status: number;
  contentType: string;
  body: string;
}

/** Read exchange `interaction` of a VCR cassette (see {@link ChatCassetteStep}). Throws when it has none. */
export function loadChatCassette(file: string, interaction = 0): CassetteResponse {
  const full = path.isAbsolute(file) ? file : path.join(CHAT_FIXTURES_DIR, file);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const doc = parseYaml(readFileSync(full, 'utf8')) as { interactions: any[] };
  const response = doc.interactions[interaction]?.response;
  if (!response?.body || typeof response.body.string !== 'string') throw new Error(`${file}: no recorded body for interaction ${interaction}`);
  const headers = response.headers ?? {};
  const contentType = (headers['content-type'] ?? headers['Content-Type'] ?? ['application/json'])[0];
  return { status: response.status?.code ?? 200, contentType, body: response.body.string };
}

let completionCounter = 0;

function words(text: string): string[] {
  if (text === '') return [];
  return text.match(/\s*\S+|\s+$/g) ?? [text];
}

function pieces(text: string, size = 8): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function callDeltas(call: ScriptedChatCall, position: number): Record<string, unknown>[] {
  const index = call.index ?? position;
  const id = call.id === undefined ? `call_${position}` : call.id;
  const head = (withName: boolean): Record<string, unknown> => ({
    index,
    ...(id !== null ? { id } : {}),
    type: 'function',
    ...(withName ? { function: { name: call.name, arguments: '' } } : {}),
  });
  const style = call.style ?? 'split';
  if (style === 'one-chunk') return [{ ...head(false), function: { name: call.name, arguments: call.arguments } }];
  if (style === 'args-last') {
    const last = call.repeatId ? head(false) : { index };
    return [head(true), { ...last, function: { arguments: call.arguments } }];
  }
  const rest = (call.chunks ?? pieces(call.arguments)).map((a) => ({ ...(call.repeatId ? head(false) : { index }), function: { arguments: a } }));
  return [head(true), ...rest];
}

/**
 * The chunk objects (without the `[DONE]` sentinel) for an output step. Usage goes out only when
 * the request asked for it with `stream_options.include_usage`, as OpenAI does.
 */
export function buildChatChunks(step: ChatOutputStep, body: ChatRequestBody): Record<string, unknown>[] {
  const id = `chatcmpl-scripted-${++completionCounter}`;
  const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model ?? 'scripted-model', system_fingerprint: 'fp_scripted' };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...extra,
  });
  const out: Record<string, unknown>[] = [chunk({ role: 'assistant', content: '' })];
  const field = step.reasoningField ?? 'reasoning_content';
  for (const r of words(step.reasoning ?? '')) out.push(chunk({ [field]: r }));
  for (const c of step.contentChunks ?? words(step.content ?? '')) out.push(chunk({ content: c }));
  (step.toolCalls ?? []).forEach((call, position) => {
    for (const d of callDeltas(call, position)) out.push(chunk({ tool_calls: [d] }));
  });
  const finish = step.finishReason === undefined ? ((step.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop') : step.finishReason;
  const u = step.usage === undefined ? { prompt_tokens: 10, completion_tokens: 5 } : step.usage;
  const usage = u ? { ...u, total_tokens: u.prompt_tokens + u.completion_tokens } : null;
  const wantsUsage = body.stream_options?.include_usage === true && usage !== null;
  if (finish !== null || (wantsUsage && step.usageOnFinishChunk)) {
    out.push(chunk({}, finish, wantsUsage && step.usageOnFinishChunk ? { usage } : {}));
  }
  if (wantsUsage && !step.usageOnFinishChunk) out.push({ ...base, choices: [], usage });
  return out;
}
