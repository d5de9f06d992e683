/**
 * Test harness: one neutral model request through the Chat Completions adapter and the real
 * `openai` SDK against a scripted Chat Completions server; returns the neutral events and the
 * server (its `requests` stay readable after it is closed).
 */
import { createChatModel } from '../../src/model/chat-model.js';
import { chatFeatures, type ChatFeatureName } from '../../src/model/chat-request.js';
import { createOpenAIChatClient } from '../../src/model/openai-chat-client.js';
import type { ModelRequest, ModelStreamEvent } from '../../src/model/port.js';
import { startScriptedChatServer, type ChatScriptEntry, type ScriptedChatServer } from './scripted-chat-server.js';

export interface ChatRequestRun {
  events: ModelStreamEvent[];
  /** The ModelError the stream threw, if it did. */
  error?: { code: string; message: string; status?: number };
  server: ScriptedChatServer;
}

/** A minimal request: one user message, no tools, `toolChoice: auto`. */
export function chatRequest(extra: Partial<ModelRequest> = {}): ModelRequest {
  return { model: 'test-model', input: [{ type: 'message', role: 'user', content: 'hello' }], tools: [], toolChoice: 'auto', ...extra };
}

export async function runChatRequest(
  script: ChatScriptEntry[],
  request: ModelRequest = chatRequest(),
  opts: { features?: ChatFeatureName[]; maxRetries?: number; signal?: AbortSignal } = {},
): Promise<ChatRequestRun> {
  const server = await startScriptedChatServer(script);
  const model = createChatModel(createOpenAIChatClient({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries: opts.maxRetries ?? 0 }), {
    features: chatFeatures(opts.features ?? []),
  });
  const events: ModelStreamEvent[] = [];
  try {
    for await (const e of model.stream(request, opts.signal ?? new AbortController().signal)) events.push(e);
    return { events, server };
  } catch (err) {
    const e = err as { code: string; message: string; status?: number };
    return { events, server, error: { code: e.code, message: e.message, ...(e.status !== undefined ? { status: e.status } : {}) } };
  } finally {
    await server.close();
  }
}

/** The `item.done` items of a run, in order. */
export const itemsOf = (events: ModelStreamEvent[]) => events.flatMap((e) => (e.type === 'item.done' ? [e.item] : []));
/** The `response.done` event of a run. */
export const doneOf = (events: ModelStreamEvent[]) => events.find((e) => e.type === 'response.done');
