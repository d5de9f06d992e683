/**
 * Chat Completions adapter overhead (`npm run bench:chat`): per tool round, the same minimal agent
 * loop (stream an answer, run the no-op tools it calls, append their outputs, ask again) written
 * twice — once on the Chat Completions adapter (neutral transcript items → `ModelPort.stream` →
 * neutral events: request mapping, message building, streaming assembly, id rules) and once on
 * the raw `openai` SDK (`chat.completions.create`, tool calls assembled by index by hand) — against
 * the same scripted Chat Completions server on loopback, alternating, in one run. The verdict is
 * the adapter loop / raw loop ratio. For reference it also prints a whole `runTurn` turn on the
 * adapter (the runtime's own per-round cost — events, validation, dispatch — is benchmarked
 * without a model in bench/run.ts).
 * Each round: one streamed answer with 3 tool calls (2 read-only parallel, 1 sequential); then
 * a final text answer. Measured per round: CPU time of this process (client, runtime and the
 * scripted server alike — the verdict's figure, because wall time on a shared machine mostly
 * measures the other processes) and wall time (printed for reference). Prints medians and the
 * ratio adapter / raw; target ≤ 1.15×. Ends with `verdict: PASS|FAIL <figures>`.
 */
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { createChatModel } from '../src/model/chat-model.js';
import { createOpenAIChatClient } from '../src/model/openai-chat-client.js';
import type { ToolDefinition, TranscriptItem } from '../src/model/port.js';
import type { JsonObject } from '../src/runtime/json.js';
import { runTurn } from '../src/runtime/loop.js';
import { defineWorkerTool, textResult } from '../src/runtime/tool.js';
import { chatCall, chatText, startScriptedChatServer, type ChatScriptEntry } from '../test/support/scripted-chat-server.js';

const ROUNDS = 10;
const TURNS = 30;
const TARGET = 1.15;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const read = defineWorkerTool({
  name: 'noop_read', description: 'no-op', schema: z.object({ path: z.string() }),
  executionMode: 'parallel', isReadOnly: true, describeActivity: (p) => `Reading ${p.path}`, execute: async () => textResult('ok'),
});
const write = defineWorkerTool({
  name: 'noop_write', description: 'no-op', schema: z.object({ path: z.string(), content: z.string() }),
  executionMode: 'sequential', describeActivity: (p) => `Writing ${p.path}`, execute: async () => textResult('ok'),
});
const toolParams = [
  { type: 'function' as const, function: { name: 'noop_read', description: 'no-op', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } },
  { type: 'function' as const, function: { name: 'noop_write', description: 'no-op', parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] } } },
];

function script(): ChatScriptEntry[] {
  const s: ChatScriptEntry[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    s.push({ toolCalls: [
      chatCall('noop_read', { path: `a${r}.txt` }, { id: `r${r}a` }),
      chatCall('noop_read', { path: `b${r}.txt` }, { id: `r${r}b` }),
      chatCall('noop_write', { path: `c${r}.txt`, content: 'x' }, { id: `r${r}c` }),
    ] });
  }
  s.push(chatText('done'));
  return s;
}

interface Sample {
  wallMs: number;
  cpuMs: number;
}

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The same loop as {@link rawTurn}, on the adapter (neutral items and events). */
async function adapterLoopTurn(baseURL: string): Promise<number> {
  const model = createChatModel(createOpenAIChatClient({ baseURL, apiKey: 'bench', maxRetries: 0 }));
  const transcript: TranscriptItem[] = [{ type: 'message', role: 'user', content: 'go' }];
  const tools: ToolDefinition[] = toolParams.map((t) => ({ type: 'function', name: t.function.name, description: t.function.description, parameters: t.function.parameters as JsonObject, strict: false }));
  const t0 = performance.now();
  let requests = 0;
  for (;;) {
    requests++;
    const calls: Extract<TranscriptItem, { type: 'function_call' }>[] = [];
    for await (const e of model.stream({ model: 'bench', input: transcript, tools, toolChoice: 'auto' }, new AbortController().signal)) {
      if (e.type !== 'item.done') continue;
      transcript.push(e.item);
      if (e.item.type === 'function_call') calls.push(e.item);
    }
    if (calls.length === 0) break;
    const outputs = await Promise.all(calls.map((c) => runNoop(c.name, c.arguments)));
    calls.forEach((c, i) => transcript.push({ type: 'function_call_output', call_id: c.call_id, output: outputs[i] }));
  }
  const ms = performance.now() - t0;
  if (requests !== ROUNDS + 1) throw new Error(`adapter loop made ${requests} requests`);
  return ms / ROUNDS;
}

async function runNoop(name: string, args: string): Promise<string> {
  const tool = name === 'noop_read' ? read : write;
  const r = await tool.execute(tool.schema.parse(JSON.parse(args)) as never, {} as never);
  return (r.content[0] as { text: string }).text;
}

async function adapterTurn(baseURL: string): Promise<number> {
  const model = createChatModel(createOpenAIChatClient({ baseURL, apiKey: 'bench', maxRetries: 0 }));
  const t0 = performance.now();
  const result = await runTurn({
    turnId: 'bench', model, modelName: 'bench', input: [{ type: 'message', role: 'user', content: 'go' }],
    tools: [read, write], maxSteps: ROUNDS + 1, signal: new AbortController().signal, emit: () => undefined, turnContext: {},
  });
  const ms = performance.now() - t0;
  if (result.status !== 'completed' || result.steps !== ROUNDS + 1) throw new Error(`adapter turn ended ${result.status} after ${result.steps}`);
  return ms / ROUNDS;
}

/** The baseline: what a minimal hand-written loop on the raw SDK does per round. */
async function rawTurn(baseURL: string): Promise<number> {
  const client = new OpenAI({ baseURL, apiKey: 'bench', maxRetries: 0 });
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'go' }];
  const t0 = performance.now();
  let requests = 0;
  for (;;) {
    requests++;
    const stream = await client.chat.completions.create({ model: 'bench', messages, tools: toolParams, stream: true, stream_options: { include_usage: true } });
    let text = '';
    const calls: { id: string; name: string; arguments: string }[] = [];
    for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
      const delta = chunk.choices[0]?.delta;
      if (!delta) continue;
      if (delta.content) text += delta.content;
      for (const tc of delta.tool_calls ?? []) {
        const c = (calls[tc.index] ??= { id: '', name: '', arguments: '' });
        if (tc.id) c.id = tc.id;
        if (tc.function?.name) c.name = tc.function.name;
        c.arguments += tc.function?.arguments ?? '';
      }
    }
    if (calls.length === 0) break;
    messages.push({ role: 'assistant', content: text || null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) });
    const outputs = await Promise.all(calls.map((c) => runNoop(c.name, c.arguments)));
    calls.forEach((c, i) => messages.push({ role: 'tool', tool_call_id: c.id, content: outputs[i] }));
  }
  const ms = performance.now() - t0;
  if (requests !== ROUNDS + 1) throw new Error(`raw loop made ${requests} requests`);
  return ms / ROUNDS;
}

async function once(fn: (baseURL: string) => Promise<number>): Promise<Sample> {
  const server = await startScriptedChatServer(script());
  try {
    const c0 = cpuNow();
    const wallMs = await fn(server.baseURL);
    return { wallMs, cpuMs: (cpuNow() - c0) / ROUNDS };
  } finally {
    await server.close();
  }
}

for (let i = 0; i < 10; i++) {
  await once(adapterLoopTurn);
  await once(rawTurn);
  await once(adapterTurn);
}
const loop: Sample[] = [];
const raw: Sample[] = [];
const turn: Sample[] = [];
for (let i = 0; i < TURNS; i++) {
  loop.push(await once(adapterLoopTurn));
  raw.push(await once(rawTurn));
  turn.push(await once(adapterTurn));
}
const cpu = (xs: Sample[]) => median(xs.map((s) => s.cpuMs));
const wall = (xs: Sample[]) => median(xs.map((s) => s.wallMs));
const ratio = cpu(loop) / cpu(raw);
const line = (label: string, xs: Sample[]) => `  ${label} CPU median ${cpu(xs).toFixed(3)} ms, wall median ${wall(xs).toFixed(3)} ms`;
console.log(`per tool round (3 calls; scripted server on loopback; ${TURNS} turns × ${ROUNDS} rounds each, interleaved):`);
console.log(line('loop on the chat adapter:   ', loop));
console.log(line('raw openai chat loop:       ', raw));
console.log(line('runTurn on the chat adapter:', turn) + ` (${(cpu(turn) / cpu(raw)).toFixed(3)}× raw; reference only)`);
console.log(`  adapter / raw: CPU ${ratio.toFixed(3)}×, wall ${(wall(loop) / wall(raw)).toFixed(3)}× — target ≤ ${TARGET}×`);
console.log(`verdict: ${ratio <= TARGET ? 'PASS' : 'FAIL'} adapter loop ${cpu(loop).toFixed(3)} ms CPU/round vs raw ${cpu(raw).toFixed(3)} ms CPU/round = ${ratio.toFixed(3)}× (target ≤ ${TARGET}×)`);
