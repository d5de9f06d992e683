/**
 * A model server that reports token counts that are not numbers (`null`, text) leaves the turn's
 * usage unknown (null), as one that reports none — never zeros — on both wire protocols, through
 * the real service and scripted servers on loopback.
 */
import { describe, expect, it } from 'vitest';
import { message } from '../support/scripted-responses-server.js';
import { useBothAdapters } from './support/both-adapters.js';
import { api, type TestService } from './support/service.js';
import { readSse } from './support/sse-client.js';

const s = useBothAdapters();

/** Run a turn; its record, and the usage on its terminal event. */
async function turn(svc: TestService) {
  const r = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
  const events = await readSse(`${svc.url}/v1/turns/${r.body.id}/events`);
  return { record: r.body, terminal: events.events.at(-1)?.json };
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });

describe('garbled usage counts', () => {
  it('Chat Completions: {"prompt_tokens": null, "completion_tokens": "abc"} makes usage null, not {0, 0}', async () => {
    s.chat.push({
      data: [chunk({ role: 'assistant', content: 'odd usage' }), chunk({}, 'stop'), { id: 'c', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: null, completion_tokens: 'abc' } }, '[DONE]'],
    });
    const { record, terminal } = await turn(s.chatSvc);
    expect(record).toMatchObject({ status: 'completed', output_text: 'odd usage', usage: null });
    expect(terminal).toMatchObject({ type: 'turn.completed', usage: null });
  });

  it('Chat Completions: a negative or fractional count is unknown too; good counts still add up', async () => {
    s.chat.push({ content: 'minus', usage: { prompt_tokens: -1, completion_tokens: 2.5 } });
    expect((await turn(s.chatSvc)).record.usage).toBeNull();
    s.chat.push({ content: 'fine', usage: { prompt_tokens: 7, completion_tokens: 2 } });
    expect((await turn(s.chatSvc)).record.usage).toEqual({ input_tokens: 7, output_tokens: 2 });
  });

  it('Responses: {"input_tokens": null, "output_tokens": "abc"} makes usage null (it was passed on as given)', async () => {
    s.responses.push({ output: [message('odd usage')], usage: { input_tokens: null, output_tokens: 'abc' } });
    const { record, terminal } = await turn(s.responsesSvc);
    expect(record).toMatchObject({ status: 'completed', output_text: 'odd usage', usage: null });
    expect(terminal).toMatchObject({ type: 'turn.completed', usage: null });
    s.responses.push({ output: [message('fine')], usage: { input_tokens: 3, output_tokens: 4 } });
    expect((await turn(s.responsesSvc)).record.usage).toEqual({ input_tokens: 3, output_tokens: 4 });
  });
});
