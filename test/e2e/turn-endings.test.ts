/**
 * Turns that end without answer text are failures a client cannot mistake for success, through
 * the HTTP service (real server, scripted model, SSE validated against openapi.yaml).
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from './support/service.js';
import { readSse } from './support/sse-client.js';
import { spec, validateComponent } from './support/spec.js';

const harness = useScriptedService();

async function runTurn(extra: Record<string, unknown> = {}): Promise<{ turn: any; events: { event?: string; json: any }[] }> {
  const created = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'go', ...extra });
  expect(created.status).toBe(200);
  const sse = await readSse(`${harness.svc.url}/v1/turns/${created.body.id}/events`);
  for (const ev of sse.events) expect(validateComponent('TurnEvent', ev.json), ev.event).toEqual([]);
  return { turn: created.body, events: sse.events };
}

describe('turn endings over HTTP', () => {
  it('an empty model response ends turn.failed empty_response, and the record says failed', async () => {
    harness.model.push({ output: [] });
    const { turn, events } = await runTurn();
    // One request, no nudge (that follows only an empty response after tool use): the message says so.
    const error = {
      code: 'empty_response',
      message: "the model returned an empty response (no text and no tool calls) to the turn's only model request; it was not asked to continue (that nudge follows only an empty response after tool use).",
    };
    expect(turn).toMatchObject({ status: 'failed', steps: 1, error });
    expect(events.at(-1)).toMatchObject({ event: 'turn.failed', json: { error } });
  });

  it('an empty response after tool use is nudged once; empty again, the message says it was asked to continue and how many requests were made', async () => {
    const before = harness.model.requests.length;
    harness.model.push({ output: [functionCall('todo', { todos: [{ id: '1', content: 'a', status: 'pending' }] })] }, { output: [] }, { output: [] });
    const { turn, events } = await runTurn({ tools: ['todo'] });
    expect(harness.model.requests.length - before).toBe(3);
    const error = { code: 'empty_response', message: 'the model returned an empty response (no text and no tool calls) again after being asked to continue (3 model requests).' };
    expect(turn).toMatchObject({ status: 'failed', steps: 3, error });
    expect(events.at(-1)).toMatchObject({ event: 'turn.failed', json: { error } });
  });

  it('an answer cut twice by max_output_tokens without text ends turn.failed max_output_tokens', async () => {
    const cut = { output: [functionCall('todo', '{"todos": [{"id": "1", "cont')], status: 'incomplete' as const, incompleteReason: 'max_output_tokens' as const };
    harness.model.push(cut, cut);
    const { turn, events } = await runTurn();
    expect(turn).toMatchObject({ status: 'failed', error: { code: 'max_output_tokens' } });
    expect(events.map((e) => e.event)).not.toContain('turn.completed');
    expect(harness.model.requests.at(-1)!.body.input.at(-1)).toMatchObject({ role: 'developer', content: expect.stringMatching(/cut off/) });
  });

  it('an answer still completes normally', async () => {
    harness.model.push({ output: [message('fine')] });
    const { turn } = await runTurn();
    expect(turn).toMatchObject({ status: 'completed', output_text: 'fine', stop_reason: 'stop' });
  });
});

describe('the final answer after max_steps (asked for without tools)', () => {
  const plan = (id: string) => functionCall('todo', { todos: [{ id: '1', content: `step ${id}`, status: 'pending' }] }, { callId: id });

  it('with text and calls: the calls are not run nor kept, a model.warning names them, and the text is the answer', async () => {
    harness.model.push({ output: [plan('call_ms1')] }, { output: [message('Here is what I have.'), plan('call_ms2')] });
    const { turn, events } = await runTurn({ tools: ['todo'], max_steps: 1 });
    expect(turn).toMatchObject({ status: 'completed', stop_reason: 'max_steps', output_text: 'Here is what I have.' });
    const warning = events.find((e) => e.event === 'model.warning');
    expect(warning?.json).toMatchObject({ code: 'tool_calls_ignored', call_ids: ['call_ms2'], message: expect.stringMatching(/todo.*max_steps.*not run/) });
    expect(events.filter((e) => e.event === 'tool.started').map((e) => e.json.call_id)).toEqual(['call_ms1']);
    expect(events.filter((e) => e.event === 'tool.completed').map((e) => e.json.call_id)).toEqual(['call_ms1']);

    // The transcript the next turn sends holds only the call that ran, with its output.
    harness.model.push({ output: [message('ok')] });
    await runTurn({ previous_turn_id: turn.id });
    const input = harness.model.requests.at(-1)!.body.input as { type?: string; call_id?: string }[];
    expect(input.filter((i) => i.type === 'function_call' || i.type === 'function_call_output').map((i) => `${i.type}:${i.call_id}`)).toEqual([
      'function_call:call_ms1', 'function_call_output:call_ms1',
    ]);
  });

  it('with calls only: turn.failed max_steps, saying the step limit was reached', async () => {
    harness.model.push({ output: [plan('call_ms3')] }, { output: [plan('call_ms4')] });
    const { turn, events } = await runTurn({ tools: ['todo'], max_steps: 1 });
    expect(turn).toMatchObject({ status: 'failed', error: { code: 'max_steps', message: expect.stringMatching(/step limit.*Raise max_steps/) } });
    expect(events.at(-1)).toMatchObject({ event: 'turn.failed', json: { error: { code: 'max_steps' } } });
    expect(events.find((e) => e.event === 'model.warning')?.json).toMatchObject({ code: 'tool_calls_ignored', call_ids: ['call_ms4'] });
    expect(events.filter((e) => e.event === 'tool.started').map((e) => e.json.call_id)).toEqual(['call_ms3']);
  });
});

describe('steps at the max_steps limit', () => {
  it('max_steps 30: 30 requests with tools, one more without, and steps 31 in turn.completed and the record, as openapi.yaml says', async () => {
    const before = harness.model.requests.length;
    harness.model.push(
      ...Array.from({ length: 30 }, (_, i) => ({ output: [functionCall('todo', { todos: [{ id: '1', content: `round ${i + 1}`, status: 'pending' }] }, { callId: `call_r${i + 1}` })] })),
      { output: [message('Thirty rounds done.')] },
    );
    const { turn, events } = await runTurn({ tools: ['todo'], max_steps: 30 });
    const requests = harness.model.requests.slice(before).map((r) => r.body as { tool_choice?: unknown });
    expect(requests).toHaveLength(31);
    expect(requests.slice(0, 30).every((b) => b.tool_choice !== 'none')).toBe(true);
    expect(requests[30].tool_choice).toBe('none');
    expect(events.filter((e) => e.event === 'tool.completed')).toHaveLength(30);
    expect(events.at(-1)).toMatchObject({ event: 'turn.completed', json: { stop_reason: 'max_steps', steps: 31 } });
    expect(turn).toMatchObject({ status: 'completed', stop_reason: 'max_steps', steps: 31 });
    expect((await api(harness.svc.url, 'GET', `/v1/turns/${turn.id}`)).body.steps).toBe(31);
    // What the contract says of the two numbers: max_steps bounds the requests that may call tools, steps counts every request.
    const schemas = spec.components.schemas;
    expect(schemas.CreateTurnRequest.properties.max_steps.description).toContain('`max_steps + 1`');
    expect(schemas.Turn.properties.steps.description).toContain('not bounded by `max_steps`');
    expect(schemas.TurnCompletedEvent.properties.steps.description).toContain('`max_steps + 1`');
  });
});

describe('usage of a turn that ended inside a model response', () => {
  it('a stream cut mid-response leaves the failed turn\'s usage unknown (null), not zero', async () => {
    const before = harness.model.requests.length;
    harness.model.push({ output: [message('a long answer that never finishes streaming to the end')], cutAfter: 4 });
    const { turn, events } = await runTurn();
    expect(harness.model.requests.length - before).toBe(1);
    expect(turn.status).toBe('failed');
    expect(turn.usage).toBeNull();
    expect((await api(harness.svc.url, 'GET', `/v1/turns/${turn.id}`)).body.usage).toBeNull();
    expect(events.at(-1)?.event).toBe('turn.failed');
  });

  it('a response cut after its headers, before any event, leaves the usage unknown (null): the server had accepted the request', async () => {
    const before = harness.model.requests.length;
    harness.model.push({ output: [message('never sent')], cutAfter: 0 });
    const { turn, events } = await runTurn();
    expect(harness.model.requests.length - before).toBe(1);
    expect(turn).toMatchObject({ status: 'failed', error: { code: 'stream_interrupted' }, usage: null });
    expect((await api(harness.svc.url, 'GET', `/v1/turns/${turn.id}`)).body.usage).toBeNull();
    expect(events.filter((e) => e.event === 'message.delta')).toEqual([]);
    expect(events.at(-1)).toMatchObject({ event: 'turn.failed', json: { error: { code: 'stream_interrupted' } } });
  });

  it('a turn cancelled while the model streams has unknown usage (null)', async () => {
    harness.model.push({ output: [message('one two three four five six seven eight nine ten eleven twelve')], delayMs: 150 });
    const created = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'go' });
    const id = created.body.id;
    for (let i = 0; i < 200; i++) {
      const sse = await api(harness.svc.url, 'GET', `/v1/turns/${id}`);
      if (sse.body.status === 'running' && harness.model.requests.length > 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await new Promise((r) => setTimeout(r, 400)); // the first frames (response.created, …) have arrived
    await api(harness.svc.url, 'POST', `/v1/turns/${id}/cancel`);
    const end = await readSse(`${harness.svc.url}/v1/turns/${id}/events`);
    expect(end.events.at(-1)?.event).toBe('turn.cancelled');
    expect((await api(harness.svc.url, 'GET', `/v1/turns/${id}`)).body).toMatchObject({ status: 'cancelled', usage: null });
  });
});
