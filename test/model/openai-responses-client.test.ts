import { afterEach, describe, expect, it } from 'vitest';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { createOpenAIResponsesClient } from '../../src/model/openai-responses-client.js';
import { ModelError } from '../../src/model/model-error.js';
import { modelFetch } from '../../src/model/model-fetch.js';
import {
  functionCall,
  message,
  reasoning,
  startScriptedResponsesServer,
  type ScriptedResponsesServer,
} from '../support/scripted-responses-server.js';

let server: ScriptedResponsesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const req = { model: 'm', input: 'hi', stream: true as const };

async function collect(iter: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const out: ResponseStreamEvent[] = [];
  for await (const e of iter) out.push(e);
  return out;
}

describe('OpenAI Responses client against the scripted server', () => {
  it('streams text, function call and reasoning events with increasing sequence numbers', async () => {
    server = await startScriptedResponsesServer([
      { output: [reasoning('enc-1', ['thinking']), message('Hello there'), functionCall('f', '{"a":1}', { callId: 'call_x' })] },
    ]);
    const client = createOpenAIResponsesClient({ baseURL: server.baseURL, apiKey: 'k', maxRetries: 0 });
    const events = await collect(client.stream(req, new AbortController().signal));
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('response.created');
    expect(types[1]).toBe('response.in_progress');
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.output_text.delta');
    expect(types).toContain('response.function_call_arguments.done');
    // Frames the runtime never reads are passed on as their type alone, payload unparsed; the
    // others arrive whole, each at its place in the stream (sequence_number = position).
    const unread = ['response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.content_part.done',
      'response.output_text.done', 'response.function_call_arguments.delta', 'response.function_call_arguments.done',
      'response.reasoning_summary_part.added', 'response.reasoning_summary_part.done', 'response.reasoning_summary_text.done'];
    events.forEach((e, i) => {
      if (unread.includes(e.type)) expect(e).toEqual({ type: e.type });
      else expect(e.sequence_number).toBe(i);
    });
    expect(types.filter((t) => !unread.includes(t))).toEqual(expect.arrayContaining(['response.created', 'response.output_text.delta', 'response.output_item.done', 'response.completed']));
    const done = events.filter((e) => e.type === 'response.output_item.done').map((e) => (e as { item: unknown }).item);
    expect(done).toMatchObject([
      { type: 'reasoning', encrypted_content: 'enc-1' },
      { type: 'message', content: [{ type: 'output_text', text: 'Hello there' }] },
      { type: 'function_call', call_id: 'call_x', arguments: '{"a":1}' },
    ]);
    expect(server.requests[0].body).toMatchObject({ model: 'm', input: 'hi', stream: true });
    expect(server.requests[0].headers.authorization).toBe('Bearer k');
  });

  it('replays a captured fixture stream unchanged', async () => {
    server = await startScriptedResponsesServer([{ fixture: 'openai-reasoning-encrypted-content.1.chunks.txt', stream: 3 }]);
    const client = createOpenAIResponsesClient({ baseURL: server.baseURL, maxRetries: 0 });
    const events = await collect(client.stream(req, new AbortController().signal));
    const text = events.filter((e) => e.type === 'response.output_text.delta').map((e) => (e as { delta: string }).delta).join('');
    expect(text).toBe('The final result is **570**.');
  });

  it('retries a 429 through the SDK and then streams', async () => {
    server = await startScriptedResponsesServer([
      { httpError: { status: 429, body: { error: { message: 'slow down', type: 'rate_limit', code: 'rate_limit_exceeded', param: null } } } },
      { output: [message('ok')] },
    ]);
    const client = createOpenAIResponsesClient({ baseURL: server.baseURL, maxRetries: 2 });
    const events = await collect(client.stream(req, new AbortController().signal));
    expect(events.at(-1)?.type).toBe('response.completed');
    expect(server.requests).toHaveLength(2);
  });

  it('throws a ModelError with the provider code when retries are exhausted', async () => {
    server = await startScriptedResponsesServer([
      { httpError: { status: 500, body: { error: { message: 'boom', type: 'server_error', code: 'server_error', param: null } } } },
    ]);
    const client = createOpenAIResponsesClient({ baseURL: server.baseURL, maxRetries: 0 });
    await expect(collect(client.stream(req, new AbortController().signal))).rejects.toMatchObject({
      name: 'ModelError', code: 'server_error', status: 500, message: `the model endpoint ${server.baseURL} answered HTTP 500: boom`,
    });
  });

  it('turns an error event from the captured stream into a ModelError with the provider code', async () => {
    server = await startScriptedResponsesServer([{ fixture: 'openai-error.1.chunks.txt' }]);
    const client = createOpenAIResponsesClient({ baseURL: server.baseURL, maxRetries: 0 });
    const err = await collect(client.stream(req, new AbortController().signal)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ code: 'insufficient_quota' });
  });

  it('reports a socket reset mid-stream as stream_interrupted', async () => {
    server = await startScriptedResponsesServer([{ output: [message('a b c d e f')], cutAfter: 4 }]);
    const client = createOpenAIResponsesClient({ baseURL: server.baseURL, maxRetries: 0 });
    const err = await collect(client.stream(req, new AbortController().signal)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'stream_interrupted' });
  });

  it('ends quietly when the turn signal aborts and leaves no listener on it', async () => {
    server = await startScriptedResponsesServer([{ output: [message('one two three four five six')], delayMs: 30 }]);
    const client = createOpenAIResponsesClient({ baseURL: server.baseURL, maxRetries: 0 });
    const turn = new AbortController();
    let added = 0;
    let removed = 0;
    const origAdd = turn.signal.addEventListener.bind(turn.signal);
    const origRemove = turn.signal.removeEventListener.bind(turn.signal);
    turn.signal.addEventListener = ((...a: Parameters<typeof origAdd>) => { added++; return origAdd(...a); }) as typeof origAdd;
    turn.signal.removeEventListener = ((...a: Parameters<typeof origRemove>) => { removed++; return origRemove(...a); }) as typeof origRemove;
    const seen: string[] = [];
    for await (const e of client.stream(req, turn.signal)) {
      seen.push(e.type);
      if (e.type === 'response.output_text.delta') turn.abort();
    }
    expect(seen).not.toContain('response.completed');
    expect(added).toBe(1);
    expect(removed).toBe(1);
  });

  it('on the service\'s own HTTP stack (modelFetch): a consumer that stops early, a stream that ends early and an error frame leave the process well', async () => {
    server = await startScriptedResponsesServer([
      { output: [message('one two three four five six')], delayMs: 2 },
      { events: [{ type: 'response.created', response: { id: 'r', output: [] } }] },
      { fixture: 'openai-error.1.chunks.txt' },
      { output: [message('after')] },
    ]);
    const client = createOpenAIResponsesClient({ baseURL: server.baseURL, maxRetries: 0, fetch: modelFetch });
    for await (const e of client.stream(req, new AbortController().signal)) {
      if (e.type === 'response.output_text.delta') break;
    }
    expect((await collect(client.stream(req, new AbortController().signal))).map((e) => e.type)).toEqual(['response.created']);
    await expect(collect(client.stream(req, new AbortController().signal))).rejects.toMatchObject({ code: 'insufficient_quota' });
    await new Promise((r) => setTimeout(r, 50)); // an unhandled body error would surface here
    const events = await collect(client.stream(req, new AbortController().signal));
    expect(events.at(-1)?.type).toBe('response.completed');
  });

  it('aborts a request only while it still runs: never after a complete stream, always when the consumer stops early', async () => {
    server = await startScriptedResponsesServer([{ output: [message('one two three four five six')] }, { output: [message('one two three four five six')] }]);
    const signals: AbortSignal[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      if (init?.signal) signals.push(init.signal);
      return fetch(input, init);
    };
    const client = createOpenAIResponsesClient({ baseURL: server.baseURL, maxRetries: 0, fetch: recordingFetch });
    const events = await collect(client.stream(req, new AbortController().signal));
    expect(events.at(-1)?.type).toBe('response.completed');
    expect(signals).toHaveLength(1);
    expect(signals[0].aborted).toBe(false);
    for await (const e of client.stream(req, new AbortController().signal)) {
      if (e.type === 'response.output_text.delta') break; // the consumer stops mid-stream
    }
    expect(signals).toHaveLength(2);
    expect(signals[1].aborted).toBe(true);
  });
});
