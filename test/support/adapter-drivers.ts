/**
 * Drivers for the model-port contract suite: run `runTurn` through ONE adapter — the Responses
 * adapter against the scripted Responses server, or the Chat Completions adapter against the
 * scripted Chat Completions server, both through the real `openai` SDK — from one neutral script,
 * and read what each request carried in one neutral view. The same loop test then runs against
 * both adapters (test/runtime/loop-contract.test.ts).
 */
import type { TurnEvent } from '../../src/runtime/events.js';
import { runTurn } from '../../src/runtime/loop.js';
import type { AnyWorkerAgentTool } from '../../src/runtime/tool.js';
import type { RunTurnOptions, RunTurnResult, TranscriptItem } from '../../src/runtime/turn-types.js';
import { createChatModel } from '../../src/model/chat-model.js';
import { chatFeatures } from '../../src/model/chat-request.js';
import { createOpenAIChatClient } from '../../src/model/openai-chat-client.js';
import { createOpenAIResponsesClient } from '../../src/model/openai-responses-client.js';
import { createResponsesModel } from '../../src/model/responses-model.js';
import type { ModelPort } from '../../src/model/port.js';
import { chatCall, startScriptedChatServer, type ChatScriptedStep } from './scripted-chat-server.js';
import { functionCall, message, reasoning, startScriptedResponsesServer, type ScriptedStep } from './scripted-responses-server.js';

/** One scripted model answer, in neutral terms. */
export interface NeutralStep {
  text?: string;
  /** Reasoning before the answer (Responses: a reasoning item's summary; Chat: `reasoning_content` deltas). */
  reasoning?: string;
  calls?: { name: string; args: string | Record<string, unknown>; id?: string }[];
  /** Cut at the output limit (Responses `incomplete`/`max_output_tokens`; Chat `finish_reason: "length"`). */
  cut?: boolean;
  /** A plain HTTP error with this status and error code. */
  httpError?: { status: number; code: string; message: string };
  /** Pause before each streamed frame, ms. */
  delayMs?: number;
  usage?: { input_tokens: number; output_tokens: number };
}

/** What one request carried, read back the same way for both wire formats. */
export interface RequestView {
  /** Offered tool names (namespaced ones as the wire names them). */
  tools: string[];
  /** `tool_choice` as sent (Chat sends none unless the server accepts it). */
  toolChoice?: string;
  /** Every tool output in the history, in order. */
  outputs: { call_id: string; output: string }[];
  /** Every call in the history, in order. */
  calls: { call_id: string; name: string }[];
  /** The last message of the history that is not a tool output: role and text. */
  last?: { role: string; text: string };
}

export type NeutralEntry = NeutralStep | ((view: RequestView, index: number) => NeutralStep);

export interface DriverRun {
  result: RunTurnResult;
  events: TurnEvent[];
  requests: RequestView[];
}

export type DriverInput = Partial<Omit<RunTurnOptions, 'model' | 'emit' | 'tools' | 'input'>> & {
  script: NeutralEntry[];
  tools?: AnyWorkerAgentTool[];
  input?: TranscriptItem[];
  maxRetries?: number;
  onEvent?: (event: TurnEvent) => void | Promise<void>;
};

export interface AdapterDriver {
  name: 'responses' | 'chat';
  run(input: DriverInput): Promise<DriverRun>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = Record<string, any>;

const argsText = (a: string | Record<string, unknown>) => (typeof a === 'string' ? a : JSON.stringify(a));
const errBody = (e: NonNullable<NeutralStep['httpError']>) => ({ error: { message: e.message, type: 'server_error', code: e.code, param: null } });
const textOf = (c: unknown): string =>
  typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: Body) => p.text ?? '').join('') : '';

function responsesView(body: Body): RequestView {
  const input: Body[] = body.input ?? [];
  const lastMsg = [...input].reverse().find((i) => i.type === 'message' || (i.role && !i.type));
  return {
    tools: (body.tools ?? []).flatMap((t: Body) => (t.type === 'namespace' ? t.tools.map((x: Body) => `${t.name}.${x.name}`) : t.name ? [t.name] : [])),
    ...(body.tool_choice !== undefined ? { toolChoice: typeof body.tool_choice === 'string' ? body.tool_choice : JSON.stringify(body.tool_choice) } : {}),
    outputs: input.filter((i) => i.type === 'function_call_output').map((i) => ({ call_id: i.call_id, output: textOf(i.output) })),
    calls: input.filter((i) => i.type === 'function_call').map((i) => ({ call_id: i.call_id, name: i.name })),
    ...(lastMsg ? { last: { role: lastMsg.role, text: textOf(lastMsg.content) } } : {}),
  };
}

function chatView(body: Body): RequestView {
  const msgs: Body[] = body.messages ?? [];
  const lastMsg = [...msgs].reverse().find((m) => m.role !== 'tool' && !(m.role === 'assistant' && m.tool_calls));
  return {
    tools: (body.tools ?? []).map((t: Body) => t.function.name),
    ...(body.tool_choice !== undefined ? { toolChoice: body.tool_choice } : {}),
    outputs: msgs.filter((m) => m.role === 'tool').map((m) => ({ call_id: m.tool_call_id, output: textOf(m.content) })),
    calls: msgs.flatMap((m) => (m.tool_calls ?? []).map((c: Body) => ({ call_id: c.id, name: c.function.name }))),
    ...(lastMsg ? { last: { role: lastMsg.role, text: textOf(lastMsg.content) } } : {}),
  };
}

function toResponsesStep(s: NeutralStep): ScriptedStep {
  if (s.httpError) return { httpError: { status: s.httpError.status, body: errBody(s.httpError) } };
  const output = [
    ...(s.reasoning !== undefined ? [reasoning('ENC', [s.reasoning])] : []),
    ...(s.text !== undefined ? [message(s.text)] : []),
    ...(s.calls ?? []).map((c) => functionCall(c.name, argsText(c.args), c.id ? { callId: c.id } : {})),
  ];
  return {
    output,
    ...(s.cut ? { status: 'incomplete' as const, incompleteReason: 'max_output_tokens' as const } : {}),
    ...(s.delayMs ? { delayMs: s.delayMs } : {}),
    ...(s.usage ? { usage: s.usage } : {}),
  };
}

let chatCallCounter = 0;

function toChatStep(s: NeutralStep): ChatScriptedStep {
  if (s.httpError) return { httpError: { status: s.httpError.status, body: errBody(s.httpError) } };
  return {
    ...(s.text !== undefined ? { content: s.text } : {}),
    ...(s.reasoning !== undefined ? { reasoning: s.reasoning } : {}),
    ...(s.calls ? { toolCalls: s.calls.map((c, k) => chatCall(c.name, argsText(c.args), { id: c.id ?? `call_s${++chatCallCounter}_${k}` })) } : {}),
    ...(s.cut ? { finishReason: 'length' as const } : {}),
    ...(s.delayMs ? { delayMs: s.delayMs } : {}),
    ...(s.usage ? { usage: { prompt_tokens: s.usage.input_tokens, completion_tokens: s.usage.output_tokens } } : {}),
  };
}

async function runWith(model: ModelPort, input: DriverInput): Promise<{ result: RunTurnResult; events: TurnEvent[] }> {
  const events: TurnEvent[] = [];
  const result = await runTurn({
    turnId: input.turnId ?? 'turn_test',
    modelName: input.modelName ?? 'test-model',
    input: input.input ?? [{ type: 'message', role: 'user', content: 'hello' }],
    signal: input.signal ?? new AbortController().signal,
    turnContext: input.turnContext ?? {},
    ...input,
    tools: input.tools ?? [],
    model,
    emit: async (e) => {
      events.push(e);
      await input.onEvent?.(e);
    },
  });
  return { result, events };
}

export const responsesDriver: AdapterDriver = {
  name: 'responses',
  async run(input) {
    const server = await startScriptedResponsesServer(
      input.script.map((entry) => (body: Body, i: number) => toResponsesStep(typeof entry === 'function' ? entry(responsesView(body), i) : entry)),
    );
    try {
      const model = createResponsesModel(createOpenAIResponsesClient({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries: input.maxRetries ?? 0 }));
      const { result, events } = await runWith(model, input);
      return { result, events, requests: server.requests.map((r) => responsesView(r.body)) };
    } finally {
      await server.close();
    }
  },
};

export const chatDriver: AdapterDriver = {
  name: 'chat',
  async run(input) {
    const server = await startScriptedChatServer(
      input.script.map((entry) => (body: Body, i: number) => toChatStep(typeof entry === 'function' ? entry(chatView(body), i) : entry)),
    );
    try {
      const model = createChatModel(createOpenAIChatClient({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries: input.maxRetries ?? 0 }), { features: chatFeatures() });
      const { result, events } = await runWith(model, input);
      return { result, events, requests: server.requests.map((r) => chatView(r.body)) };
    } finally {
      await server.close();
    }
  },
};

export const ADAPTER_DRIVERS: AdapterDriver[] = [responsesDriver, chatDriver];
