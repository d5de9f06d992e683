/**
 * A model stream that sent events but ended without a usable answer fails `stream_interrupted`
 * with a message saying what came — not "the model endpoint answered but its stream ended without
 * a single event", which is kept for a stream that sent nothing at all. Through the real service
 * and scripted Chat Completions and Responses servers on loopback.
 */
import { describe, expect, it } from 'vitest';
import { chatCall } from '../support/scripted-chat-server.js';
import { useBothAdapters } from './support/both-adapters.js';
import { api, type TestService } from './support/service.js';
import { readSse } from './support/sse-client.js';

const s = useBothAdapters();

/** What a turn says when the endpoint `baseURL` answered with no event at all. */
const NO_EVENT = (baseURL: string) => `the model endpoint ${baseURL} answered but its stream ended without a single event (an empty body, or no server-sent events): check OPENAI_BASE_URL`;

/** Run a turn; its record and its `turn.failed` event (SSE). */
async function failedTurn(svc: TestService, body: Record<string, unknown> = {}) {
  const r = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi', ...body });
  const events = await readSse(`${svc.url}/v1/turns/${r.body.id}/events`);
  expect(r.body.status).toBe('failed');
  expect(events.events.at(-1)).toMatchObject({ event: 'turn.failed', json: { error: r.body.error } });
  // The server answered: tokens may have been spent, so usage is unknown.
  expect(r.body.usage).toBeNull();
  return r.body.error as { code: string; message: string };
}

const chunk = (choices: unknown[]) => ({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices });

describe('Chat Completions: chunks came, no answer', () => {
  it('tool-call chunks, then the body ends without a finish_reason: says so, with the chunk count', async () => {
    // role chunk + name chunk + 3 argument pieces; the [DONE] frame and the finish chunk never come.
    s.chat.push({ toolCalls: [chatCall('todo', '{"todos":[]}', { chunks: ['{"tod', 'os":', '[]}'] })], finishReason: null, usage: null, cutAfter: 5, cutMode: 'end' });
    const error = await failedTurn(s.chatSvc, { tools: ['todo'] });
    expect(error).toEqual({ code: 'stream_interrupted', message: `the stream from the model endpoint ${s.chat.baseURL} ended without a finish_reason (after 5 chunks): the answer may be cut off, so it was not used` });
  });

  it('only chunks with "choices": [] then [DONE]: none had a choice', async () => {
    s.chat.push({ data: [chunk([]), chunk([]), '[DONE]'] });
    const error = await failedTurn(s.chatSvc);
    expect(error).toEqual({ code: 'stream_interrupted', message: `the stream from the model endpoint ${s.chat.baseURL} ended without an answer: none of its 2 chunks had a choice ("choices" was empty or missing in each)` });
  });

  it('chunks for choice 1 only: no choice 0 in any chunk', async () => {
    s.chat.push({ data: [chunk([{ index: 1, delta: { role: 'assistant', content: 'on choice 1' }, finish_reason: null }]), chunk([{ index: 1, delta: {}, finish_reason: 'stop' }]), '[DONE]'] });
    const error = await failedTurn(s.chatSvc);
    expect(error).toEqual({
      code: 'stream_interrupted',
      message: `the stream from the model endpoint ${s.chat.baseURL} ended without an answer: no choice 0 in any chunk (its 2 chunks had only choice 1; this service asks for one choice and reads choice 0)`,
    });
  });

  it('a stream with no chunk at all still says no event came', async () => {
    s.chat.push({ data: [] });
    expect(await failedTurn(s.chatSvc)).toEqual({ code: 'stream_interrupted', message: NO_EVENT(s.chat.baseURL) });
  });

  it('a stream of only [DONE] is a finished empty answer (empty_response), not a cut stream', async () => {
    s.chat.push({ data: ['[DONE]'] });
    const error = await failedTurn(s.chatSvc);
    expect(error.code).toBe('empty_response');
  });
});

describe('Responses: events came, none of them part of an answer', () => {
  it('counts events the adapter does not pass on (response.in_progress) as received', async () => {
    const inProgress = { type: 'response.in_progress', sequence_number: 0, response: { id: 'resp_1', object: 'response', status: 'in_progress', output: [] } };
    s.responses.push({ events: [inProgress, { ...inProgress, sequence_number: 1 }] });
    expect(await failedTurn(s.responsesSvc)).toEqual({
      code: 'stream_interrupted',
      message: `the stream from the model endpoint ${s.responses.baseURL} ended before the response completed (2 events received, none of them part of an answer)`,
    });
  });
});
