/**
 * Turns over HTTP end to end: real server, real SSE client, the real openai SDK against the
 * scripted Responses server, real tools (todo; computer `command` in bubblewrap for cancel).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from './support/service.js';
import { readSse, type SseEvent } from './support/sse-client.js';
import { todoThenAnswer } from './support/scripts.js';

const harness = useScriptedService();

const ids = (events: SseEvent[]) => events.map((e) => Number(e.id));
const consecutive = (n: number, from = 1) => Array.from({ length: n }, (_, i) => from + i);

async function waitFor<T>(fn: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('waitFor timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('POST /v1/turns', () => {
  it('streams a turn with a tool call from its first event to turn.completed', async () => {
    harness.model.push(todoThenAnswer, todoThenAnswer);
    const r = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: 'plan a trip', tools: ['todo'] } });
    expect(r.status).toBe(200);
    expect(r.serverClosed).toBe(true);
    const types = r.events.map((e) => e.event);
    expect(types[0]).toBe('turn.started');
    expect(r.events[0].json.tools).toContain('todo');
    expect(types).toEqual(expect.arrayContaining(['tool.started', 'presentation', 'tool.completed', 'message.delta', 'message.completed']));
    expect(types.indexOf('tool.started')).toBeLessThan(types.indexOf('tool.completed'));
    expect(types[types.length - 1]).toBe('turn.completed');
    expect(ids(r.events)).toEqual(consecutive(r.events.length));
    for (const e of r.events) expect(e.json.type).toBe(e.event);
    const presentation = r.events.find((e) => e.event === 'presentation')!;
    expect(presentation.json.event.type).toBe('plan.snapshot');
    const last = r.events[r.events.length - 1].json;
    expect(last.output_text).toBe('done: plan a trip');

    const turnId = r.headers.get('x-turn-id')!;
    const turn = await api(harness.svc.url, 'GET', `/v1/turns/${turnId}`);
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ id: turnId, agent_id: 'default', status: 'completed', output_text: 'done: plan a trip', stop_reason: 'stop', steps: 2, error: null });
    // The model got the tool's output back with the same call_id.
    const second = harness.model.requests[harness.model.requests.length - 1].body;
    const call = second.input.find((i: any) => i.type === 'function_call');
    const output = second.input.find((i: any) => i.type === 'function_call_output');
    expect(output.call_id).toBe(call.call_id);
  });

  it("streams tool.started arguments as the tool's schema parsed them, or null for a call that did not validate, as README and the served spec say", async () => {
    harness.model.push(
      {
        output: [
          functionCall('todo', { todos: 'not a list' }, { callId: 'call_args_bad' }),
          functionCall('todo', { todos: [{ id: '1', content: 'parsed' }] }, { callId: 'call_args_ok' }),
        ],
      },
      { output: [message('done')] },
    );
    const r = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: 'args', tools: ['todo'] } });
    const started = (id: string) => r.events.find((e) => e.event === 'tool.started' && e.json.call_id === id)?.json;
    expect(started('call_args_bad')).toMatchObject({ label: 'Calling todo', arguments: null });
    expect(started('call_args_ok')?.arguments).toMatchObject({ todos: [{ id: '1', content: 'parsed' }] });
    const spec = await fetch(`${harness.svc.url}/openapi.yaml`).then((x) => x.text());
    const doc = (await import('yaml')).parse(spec);
    expect(doc.components.schemas.ToolStartedEvent.properties.arguments.description).toMatch(/schema parsed them.*null for a call answered without reaching it/);
  });

  it('answers 202 with links without an SSE Accept, and the events can be read afterwards', async () => {
    harness.model.push({ output: [message('async answer')] });
    const r = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'hello' });
    expect(r.status).toBe(202);
    expect(['queued', 'running']).toContain(r.body.status);
    expect(r.body.links).toEqual({ self: `/v1/turns/${r.body.id}`, events: `/v1/turns/${r.body.id}/events`, cancel: `/v1/turns/${r.body.id}/cancel` });
    expect(r.headers.get('location')).toBe(`/v1/turns/${r.body.id}`);
    const ev = await readSse(harness.svc.url + r.body.links.events);
    expect(ev.events[ev.events.length - 1].json).toMatchObject({ type: 'turn.completed', output_text: 'async answer' });
    expect(ids(ev.events)).toEqual(consecutive(ev.events.length));
  });

  it('weighs Accept q-values: streams only when text/event-stream is preferred over application/json', async () => {
    const cases: [string, 'sse' | 'json'][] = [
      ['text/event-stream', 'sse'],
      ['text/event-stream;q=0, application/json', 'json'],
      ['application/json, text/event-stream;q=0', 'json'],
      ['text/event-stream;q=0.2, application/json', 'json'],
      ['application/json;q=0.5, text/event-stream', 'sse'],
      ['application/json;q=0.9, text/event-stream;q=1.0', 'sse'],
      ['*/*', 'json'],
      ['*/*;q=0.1, text/event-stream', 'sse'],
      ['text/html, */*;q=0.8', 'json'],
    ];
    for (const [accept, kind] of cases) {
      harness.model.push({ output: [message(`answer for ${accept}`)] });
      const res = await fetch(`${harness.svc.url}/v1/turns`, { method: 'POST', headers: { 'content-type': 'application/json', accept }, body: JSON.stringify({ input: 'hello' }) });
      const text = await res.text(); // a stream ends after turn.completed
      if (kind === 'sse') {
        expect([accept, res.status, res.headers.get('content-type')]).toEqual([accept, 200, expect.stringMatching(/^text\/event-stream/)]);
        expect(text).toContain(`answer for ${accept}`);
      } else {
        expect([accept, res.status, res.headers.get('content-type')]).toEqual([accept, 202, expect.stringMatching(/^application\/json/)]);
        const id = JSON.parse(text).id as string;
        const ev = await readSse(`${harness.svc.url}/v1/turns/${id}/events`);
        expect(ev.events.at(-1)!.json).toMatchObject({ type: 'turn.completed', output_text: `answer for ${accept}` });
      }
    }
  });

  it('with ?wait=true returns the final turn object', async () => {
    harness.model.push({ output: [message('waited answer')], usage: { input_tokens: 11, output_tokens: 7 } });
    const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hello', metadata: { ticket: 42 } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'completed',
      output_text: 'waited answer',
      usage: { input_tokens: 11, output_tokens: 7 },
      metadata: { ticket: 42 },
    });
    expect(typeof r.body.completed_at).toBe('string');
  });

  it('with ?wait=true holds the response through a slow turn, and a client that gives up harms nothing', async () => {
    harness.model.push({ output: [message('slow but sure', { chunks: ['slow ', 'but ', 'sure'] })], delayMs: 300 });
    const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'slow' });
    expect(r.body).toMatchObject({ status: 'completed', output_text: 'slow but sure' });
    harness.model.push({ output: [message('nobody waits', { chunks: ['nobody ', 'waits'] })], delayMs: 300 });
    const ac = new AbortController();
    const gaveUp = fetch(`${harness.svc.url}/v1/turns?wait=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'leave', agent_id: 'leaver' }),
      signal: ac.signal,
    }).catch((e) => e);
    setTimeout(() => ac.abort(), 200);
    expect(await gaveUp).toBeInstanceOf(Error);
    const list = await waitFor(async () => {
      const l = (await api(harness.svc.url, 'GET', '/v1/turns?agent_id=leaver')).body.data;
      return l[0]?.status === 'completed' ? l : undefined;
    });
    expect(list[0].output_text).toBe('nobody waits');
  });

  it('with ?wait=true adds one close listener to the response beyond what a 202 answer has', async () => {
    // Count the 'close' listeners added to each probed response over its whole life.
    const added = new Map<string, number>();
    const probe = (req: IncomingMessage, res: ServerResponse) => {
      const name = req.headers['x-probe'];
      if (typeof name !== 'string') return;
      added.set(name, 0);
      res.on('newListener', (event) => {
        if (event === 'close') added.set(name, added.get(name)! + 1);
      });
    };
    harness.svc.app.server.prependListener('request', probe);
    try {
      harness.model.push({ output: [message('plain')] }, { output: [message('waited', { chunks: ['wai', 'ted'] })], delayMs: 200 });
      const plain = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'plain' }, { 'x-probe': 'plain' });
      expect(plain.status).toBe(202);
      await harness.svc.services.turns.waitForTerminal(plain.body.id);
      const waited = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'waited' }, { 'x-probe': 'wait' });
      expect(waited.body).toMatchObject({ status: 'completed', output_text: 'waited' });
      await waitFor(() => (added.has('wait') && added.has('plain') ? true : undefined));
      expect(added.get('wait')! - added.get('plain')!).toBe(1);
    } finally {
      harness.svc.app.server.off('request', probe);
    }
  });

  it('keeps running after the POST stream is closed at event k, and Last-Event-ID resumes exactly the rest', async () => {
    harness.model.push({ output: [message('one two three four five', { chunks: ['one ', 'two ', 'three ', 'four ', 'five'] })], delayMs: 40 });
    const first = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: 'count' }, stopWhen: (_e, all) => all.length === 2 });
    expect(first.events).toHaveLength(2);
    const id = first.headers.get('x-turn-id')!;
    const rest = await readSse(`${harness.svc.url}/v1/turns/${id}/events`, { headers: { 'last-event-id': first.events[1].id! } });
    expect(ids(rest.events)).toEqual(consecutive(rest.events.length, 3));
    expect(rest.events[rest.events.length - 1].event).toBe('turn.completed');
    const full = await readSse(`${harness.svc.url}/v1/turns/${id}/events`);
    expect([...first.events, ...rest.events].map((e) => e.data)).toEqual(full.events.map((e) => e.data));
    expect((await api(harness.svc.url, 'GET', `/v1/turns/${id}`)).body.status).toBe('completed');
  });

  it('cancels the turn when the client leaves a stream opened with cancel_on_disconnect', async () => {
    harness.model.push({ output: [message('slow words', { chunks: ['a ', 'b ', 'c ', 'd ', 'e ', 'f ', 'g ', 'h'] })], delayMs: 300 });
    const first = await readSse(`${harness.svc.url}/v1/turns`, {
      method: 'POST',
      body: { input: 'slow', cancel_on_disconnect: true },
      stopWhen: (e) => e.event === 'message.delta',
    });
    const id = first.headers.get('x-turn-id')!;
    const turn = await waitFor(async () => {
      const t = (await api(harness.svc.url, 'GET', `/v1/turns/${id}`)).body;
      return t.status === 'running' || t.status === 'queued' ? undefined : t;
    });
    expect(turn.status).toBe('cancelled');
  });

  it('cancels the turn when the client leaves a ?wait=true request sent with cancel_on_disconnect', async () => {
    harness.model.push({ output: [message('slow words', { chunks: ['a ', 'b ', 'c ', 'd ', 'e ', 'f ', 'g ', 'h'] })], delayMs: 300 });
    const input = `wait then leave ${Date.now()}`;
    const ac = new AbortController();
    const pending = fetch(`${harness.svc.url}/v1/turns?wait=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input, cancel_on_disconnect: true }),
      signal: ac.signal,
    }).catch((err: Error) => err);
    const running = await waitFor(async () => {
      const page = (await api(harness.svc.url, 'GET', '/v1/turns?limit=5')).body;
      return page.data.find((t: any) => t.input_preview === input && t.status === 'running');
    });
    ac.abort();
    expect(await pending).toBeInstanceOf(Error);
    const turn = await waitFor(async () => {
      const t = (await api(harness.svc.url, 'GET', `/v1/turns/${running.id}`)).body;
      return t.status === 'running' || t.status === 'queued' ? undefined : t;
    }, 5_000);
    expect(turn.status).toBe('cancelled');
  });

  it('cancels during a slow sandboxed command: status cancelled and turn.cancelled lists the call', async () => {
    harness.model.push({ output: [functionCall('command', { command: 'sleep 30' }, { callId: 'call_sleep' })] });
    const created = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'sleep please', tools: ['computer'] });
    expect(created.status).toBe(202);
    const id = created.body.id;
    const started = await readSse(`${harness.svc.url}/v1/turns/${id}/events`, { stopWhen: (e) => e.event === 'tool.started' || (e.event ?? '').startsWith('turn.') && e.event !== 'turn.started' });
    expect(started.events[started.events.length - 1].event).toBe('tool.started');
    const t0 = Date.now();
    const cancelled = await api(harness.svc.url, 'POST', `/v1/turns/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(10_000);
    const all = await readSse(`${harness.svc.url}/v1/turns/${id}/events`);
    const last = all.events[all.events.length - 1];
    expect(last.event).toBe('turn.cancelled');
    expect(last.json.calls).toEqual([{ call_id: 'call_sleep', state: 'cancelled' }]);
    // Cancelling a finished turn returns it unchanged.
    const again = await api(harness.svc.url, 'POST', `/v1/turns/${id}/cancel`);
    expect(again.body).toEqual(cancelled.body);
  });

  it('sends a message list input and instructions to the model as given', async () => {
    harness.model.push({ output: [message('ok')] });
    const before = harness.model.requests.length;
    const input = [
      { role: 'developer', content: 'be brief' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: 'again' },
    ];
    const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input, instructions: 'You are a test.', max_steps: 3, model: 'other-model' });
    expect(r.body).toMatchObject({ status: 'completed', model: 'other-model' });
    const sent = harness.model.requests[before].body;
    expect(sent.model).toBe('other-model');
    expect(sent.instructions).toBe('You are a test.');
    expect(sent.input.map((i: any) => [i.role, i.content])).toEqual(input.map((m) => [m.role, m.content]));
  });

  it('continues from a stored transcript with previous_turn_id', async () => {
    harness.model.push({ output: [message('first answer')] });
    const a = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'remember 7', agent_id: 'mem' });
    harness.model.push({ output: [message('it was 7')] });
    const b = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'what number?', agent_id: 'mem', previous_turn_id: a.body.id });
    expect(b.body.status).toBe('completed');
    const sent = harness.model.requests[harness.model.requests.length - 1].body.input as any[];
    const texts = sent.map((i) => (typeof i.content === 'string' ? i.content : JSON.stringify(i.content)));
    expect(texts[0]).toContain('remember 7');
    expect(texts.some((t) => t.includes('first answer'))).toBe(true);
    expect(texts[texts.length - 1]).toContain('what number?');
    const other = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'x', agent_id: 'someone-else', previous_turn_id: a.body.id });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('agent_mismatch');
    const missing = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'x', previous_turn_id: '0190a000-0000-7000-8000-000000000000' });
    expect(missing.status).toBe(404);
  });

  it('returns the same turn for a repeated Idempotency-Key and 409 for the same key with another body', async () => {
    harness.model.push({ output: [message('once')] });
    const before = harness.model.requests.length;
    const key = { 'idempotency-key': `key-${Date.now()}` };
    const a = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'only once' }, key);
    const b = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'only once' }, key);
    expect(b.body.id).toBe(a.body.id);
    expect(harness.model.requests.length).toBe(before + 1);
    const c = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'something else' }, key);
    expect(c.status).toBe(409);
    expect(c.body.error.code).toBe('idempotency_key_reused');
  });
});

describe('POST /v1/tools/preview', () => {
  it('returns exactly the tools array the model receives for the same configuration', async () => {
    const config = { tools: ['todo', 'computer'], agent_id: 'preview-agent' };
    const preview = await api(harness.svc.url, 'POST', '/v1/tools/preview', config);
    expect(preview.status).toBe(200);
    expect(preview.body.families).toEqual(['todo', 'computer']);
    expect(preview.body.tools).toEqual(expect.arrayContaining(['todo', 'command', 'read_file']));
    harness.model.push({ output: [message('ok')] });
    const before = harness.model.requests.length;
    await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi', ...config });
    expect(harness.model.requests[before].body.tools).toEqual(preview.body.definitions);
    const none = await api(harness.svc.url, 'POST', '/v1/tools/preview', { tools: [] });
    expect(none.body).toMatchObject({ tools: [], definitions: [] });
  });
});
