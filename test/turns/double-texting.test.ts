/**
 * Double-texting: POST /v1/turns with `previous_turn_id` of a turn that is still active, for each
 * `multitask_strategy` — reject (the default), enqueue, interrupt, steer. Real service, scripted
 * model (its request log shows what each turn saw), real commands in the sandbox.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message, type ResponsesRequestBody } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { validateResponse } from '../e2e/support/spec.js';

const harness = useScriptedService();
const AGENT = 'texter';

const texts = (body: ResponsesRequestBody) =>
  (body.input as { role?: string; type?: string; content?: unknown }[]).filter((i) => i.role === 'user').map((i) => (typeof i.content === 'string' ? i.content : JSON.stringify(i.content)));

/** Start a turn whose first round runs `command` in the sandbox; resolves once the command runs. */
async function busyTurn(command: string, input = 'first request'): Promise<string> {
  const created = await api(harness.svc.url, 'POST', '/v1/turns', { input, agent_id: AGENT, tools: ['computer'] });
  expect(created.status).toBe(202);
  await readSse(`${harness.svc.url}/v1/turns/${created.body.id}/events`, { stopWhen: (e) => e.event === 'tool.started', timeoutMs: 30_000 });
  return created.body.id;
}

/** POST a turn continuing `previous`; with `tools` unless `strategy` is steer, which takes none (it adds the input to that turn). */
async function doubleText(previous: string, input: string, strategy?: string) {
  const tools = strategy === 'steer' ? {} : { tools: ['computer'] };
  const r = await api(harness.svc.url, 'POST', '/v1/turns', { input, agent_id: AGENT, ...tools, previous_turn_id: previous, ...(strategy ? { multitask_strategy: strategy } : {}) });
  expect(validateResponse('/v1/turns', 'post', r.status, r.body)).toEqual([]);
  return r;
}

const finished = (id: string) => harness.svc.services.turns.waitForTerminal(id);

describe('double-texting (multitask_strategy)', () => {
  it('reject (the default) refuses a second turn on an active one with 409 previous_turn_active', async () => {
    harness.model.push({ output: [functionCall('command', { command: 'sleep 1' })] }, { output: [message('first done')] });
    const prev = await busyTurn('sleep 1');
    for (const strategy of [undefined, 'reject']) {
      const r = await doubleText(prev, 'second', strategy);
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('previous_turn_active');
      expect(r.body.error.message).toContain('multitask_strategy');
      expect(r.body.error.details).toEqual({ previous_turn_id: prev, status: 'running' });
    }
    expect(await finished(prev)).toMatchObject({ status: 'completed' });
  });

  it('steer: an input over the 100000-character steering cap is refused with 400 invalid_request and details, like the messages route', async () => {
    harness.model.push({ output: [functionCall('command', { command: 'sleep 2' })] }, { output: [message('first done')] });
    const prev = await busyTurn('sleep 2');
    const long = 'x'.repeat(100_001);
    const r = await doubleText(prev, long, 'steer');
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual({
      code: 'invalid_request',
      message: 'input must be at most 100000 characters long, got 100001 (a steering message: multitask_strategy "steer")',
      details: [{ path: 'input', code: 'too_big', message: 'must be at most 100000 characters long, got 100001' }],
    });
    const direct = await api(harness.svc.url, 'POST', `/v1/turns/${prev}/messages`, { content: long });
    expect(direct.status).toBe(400);
    expect(direct.body.error.code).toBe('invalid_request');
    expect(direct.body.error.details).toEqual([{ path: 'content', code: 'too_big', message: r.body.error.details[0].message }]);
    // An emoji counts 1 (a code point), not its 2 UTF-16 units: 100001 of them is over by one.
    const emoji = await api(harness.svc.url, 'POST', `/v1/turns/${prev}/messages`, { content: '😀'.repeat(100_001) });
    expect(emoji.body.error).toEqual({ code: 'invalid_request', message: 'content must be at most 100000 characters long, got 100001', details: [{ path: 'content', code: 'too_big', message: 'must be at most 100000 characters long, got 100001' }] });
    // Nothing was queued into the running turn.
    expect((await finished(prev)).status).toBe('completed');
    const reqs = harness.model.requests.slice(-1).map((q) => texts(q.body));
    expect(reqs[0].some((t) => t.length > 100_000)).toBe(false);
  });

  it('steer: an input list with other roles than user is refused (400 invalid_request naming each), nothing is queued', async () => {
    harness.model.push({ output: [functionCall('command', { command: 'sleep 2' })] }, { output: [message('first done')] });
    const prev = await busyTurn('sleep 2');
    const r = await api(harness.svc.url, 'POST', '/v1/turns', {
      input: [{ role: 'user', content: 'fine' }, { role: 'assistant', content: 'I am the assistant' }, { role: 'system', content: 'sys' }],
      agent_id: AGENT, previous_turn_id: prev, multitask_strategy: 'steer',
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual({
      code: 'invalid_request',
      message: 'input[1].role must be "user" for a steering message, got "assistant"; input[2].role must be "user" for a steering message, got "system" (multitask_strategy "steer" adds the input to the running turn as the user\'s message)',
      details: [
        { path: 'input[1].role', code: 'invalid_value', message: 'must be "user" for a steering message, got "assistant"' },
        { path: 'input[2].role', code: 'invalid_value', message: 'must be "user" for a steering message, got "system"' },
      ],
    });
    expect(validateResponse('/v1/turns', 'post', r.status, r.body)).toEqual([]);
    expect(await finished(prev)).toMatchObject({ status: 'completed' });
    expect(JSON.stringify(harness.model.requests.at(-1)!.body.input)).not.toContain('I am the assistant');
  });

  it('steer: fields steering does not use are refused (400 invalid_request naming each), nothing is queued', async () => {
    harness.model.push({ output: [functionCall('command', { command: 'sleep 2' })] }, { output: [message('first done')] });
    const prev = await busyTurn('sleep 2');
    const ignored = {
      instructions: 'answer in French', model: 'other-model', model_api: 'chat', tools: ['todo'], max_steps: 3, metadata: { ticket: 7 },
      brain: true, skills: [], approvals: 'destructive', cancel_on_disconnect: true,
    };
    const r = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'I am ignored', agent_id: AGENT, previous_turn_id: prev, multitask_strategy: 'steer', ...ignored }, { 'idempotency-key': 'steer-with-extras' });
    expect(r.status).toBe(400);
    expect(validateResponse('/v1/turns', 'post', r.status, r.body)).toEqual([]);
    const names = Object.keys(ignored);
    const what = 'is not used by multitask_strategy "steer", which only adds input to the active turn: leave it out, or send "enqueue" or "interrupt" for a new turn that uses it';
    expect(r.body.error).toEqual({
      code: 'invalid_request',
      message: `${names.join(', ')} are not used by multitask_strategy "steer": previous turn ${prev} is still active (status running), so only input goes into it, as the user's steering message; steer takes only input, previous_turn_id, agent_id and multitask_strategy (and the Idempotency-Key header; other fields only with the value leaving them out means, such as "brain": false). Leave them out to steer, or send "multitask_strategy": "enqueue" or "interrupt" for a new turn that uses them`,
      details: names.map((path) => ({ path, code: 'not_used_by_steer', message: what })),
    });
    // One field alone is named alone; the route-level cancel_on_disconnect counts too.
    for (const [field, value] of [['instructions', 'be brief'], ['cancel_on_disconnect', true], ['tools', ['todo', 'clarify', 'web']]] as const) {
      const one = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'I am ignored too', previous_turn_id: prev, multitask_strategy: 'steer', agent_id: AGENT, [field]: value });
      expect(one.status, field).toBe(400);
      expect(one.body.error.message, field).toMatch(new RegExp(`^${field} is not used by multitask_strategy "steer": .* Leave it out to steer, or .* for a new turn that uses it$`));
      expect(one.body.error.details, field).toEqual([{ path: field, code: 'not_used_by_steer', message: what }]);
    }
    // Fields sent as null are left out, so they are no reason to refuse: the same steer goes in.
    const nulls = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'fine', agent_id: AGENT, previous_turn_id: prev, multitask_strategy: 'steer', instructions: null, tools: null, cancel_on_disconnect: null });
    expect(nulls.status).toBe(202);
    expect(nulls.body).toMatchObject({ id: prev, steered: true });
    expect(await finished(prev)).toMatchObject({ status: 'completed' });
    const input = JSON.stringify(harness.model.requests.at(-1)!.body.input);
    expect(input).toContain('fine');
    expect(input).not.toContain('I am ignored');
    const log = await readSse(`${harness.svc.url}/v1/turns/${prev}/events`);
    expect(log.events.filter((e) => e.event === 'input.queued')).toHaveLength(1);
  });

  it('steer: webhook, unknown skills and approvals naming a tool the turn lacks are refused as not used by steer, not checked as for a new turn', async () => {
    // This service has no WEBHOOK_SECRET and no skill "nope": a new turn with them is 503 / 400 for that.
    expect(harness.svc.services.config.WEBHOOK_SECRET).toBeUndefined();
    harness.model.push({ output: [functionCall('command', { command: 'sleep 2' })] }, { output: [message('first done')] });
    const prev = await busyTurn('sleep 2');
    const fields = { webhook: { url: 'https://example.com/hook' }, skills: ['nope'], approvals: { write_file: 'always' } };
    for (const [field, value] of Object.entries(fields)) {
      const r = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'steer me', agent_id: AGENT, previous_turn_id: prev, multitask_strategy: 'steer', [field]: value });
      expect([field, r.status, r.body.error?.code]).toEqual([field, 400, 'invalid_request']);
      expect(r.body.error.details, field).toEqual([expect.objectContaining({ path: field, code: 'not_used_by_steer' })]);
      expect(validateResponse('/v1/turns', 'post', r.status, r.body)).toEqual([]);
    }
    expect(await finished(prev)).toMatchObject({ status: 'completed' });
    // Once the previous turn has finished, steer starts a new turn: the new turn's checks apply.
    const hook = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'later', agent_id: AGENT, previous_turn_id: prev, multitask_strategy: 'steer', webhook: fields.webhook });
    expect([hook.status, hook.body.error?.code]).toEqual([503, 'webhooks_not_configured']);
    const skill = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'later', agent_id: AGENT, previous_turn_id: prev, multitask_strategy: 'steer', skills: ['nope'] });
    expect([skill.status, skill.body.error?.code]).toEqual([400, 'unknown_skill']);
    const approvals = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'later', agent_id: AGENT, previous_turn_id: prev, multitask_strategy: 'steer', approvals: fields.approvals });
    expect([approvals.status, approvals.body.error?.code]).toEqual([400, 'unknown_approval_tool']);
  });

  it('steer: fields sent with the value leaving them out means (false, "", the server\'s defaults) are no reason to refuse: the steer goes in', async () => {
    const config = harness.svc.services.config;
    expect([config.MODEL, config.MODEL_API, config.MAX_STEPS, config.DEFAULT_TOOLS]).toEqual(['scripted-model', 'responses', 20, ['todo', 'clarify']]);
    harness.model.push({ output: [functionCall('command', { command: 'sleep 2' })] }, { output: [message('first done')] });
    const prev = await busyTurn('sleep 2');
    // What a client that always sends its defaults sends; tools in another order is the same set.
    const defaults = { instructions: '', model: 'scripted-model', model_api: 'responses', tools: ['clarify', 'todo'], max_steps: 20, brain: false, cancel_on_disconnect: false };
    const r = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'with defaults', agent_id: AGENT, previous_turn_id: prev, multitask_strategy: 'steer', ...defaults });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ id: prev, steered: true, message_id: expect.stringMatching(/^msg_/) });
    expect(validateResponse('/v1/turns', 'post', r.status, r.body)).toEqual([]);
    // A default beside a value that is not one: only the latter is named.
    const mixed = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'not this', agent_id: AGENT, previous_turn_id: prev, multitask_strategy: 'steer', brain: false, max_steps: 21 });
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.details.map((d: { path: string }) => d.path)).toEqual(['max_steps']);
    expect(await finished(prev)).toMatchObject({ status: 'completed' });
    const input = JSON.stringify(harness.model.requests.at(-1)!.body.input);
    expect(input).toContain('with defaults');
    expect(input).not.toContain('not this');
  });

  it('enqueue: the new turn waits as queued and runs on the previous turn\'s final transcript when it ends', async () => {
    const first = harness.model.requests.length;
    harness.model.push(
      { output: [functionCall('command', { command: 'sleep 2; echo one' })] },
      { output: [message('first answer')] },
      { output: [message('second answer')] },
    );
    const prev = await busyTurn('sleep 2');
    const r = await doubleText(prev, 'second request', 'enqueue');
    expect(r.status).toBe(202);
    expect(r.body.id).not.toBe(prev);
    await new Promise((res) => setTimeout(res, 700)); // claimed and deferred at least once
    expect((await api(harness.svc.url, 'GET', `/v1/turns/${r.body.id}`)).body.status).toBe('queued');
    expect((await api(harness.svc.url, 'GET', `/v1/turns/${prev}`)).body.status).toBe('running');

    expect(await finished(r.body.id)).toMatchObject({ status: 'completed', output_text: 'second answer' });
    expect(await finished(prev)).toMatchObject({ status: 'completed', output_text: 'first answer' });
    const reqs = harness.model.requests.slice(first).map((q) => q.body);
    expect(reqs).toHaveLength(3);
    const last = reqs[2].input as any[];
    expect(texts(reqs[2])).toEqual(['first request', 'second request']);
    expect(last.some((i) => i.type === 'function_call_output')).toBe(true);
    expect(JSON.stringify(last)).toContain('first answer'); // the previous turn's final transcript
  });

  it('interrupt: the previous turn is cancelled keeping its completed rounds, and the new one runs on that transcript', async () => {
    const first = harness.model.requests.length;
    harness.model.push(
      { output: [functionCall('todo', { todos: [{ id: '1', content: 'plan kept' }] }, { callId: 'call_plan' })] },
      { output: [functionCall('command', { command: 'sleep 30' }, { callId: 'call_slow' })] },
      { output: [message('switched to the new request')] },
    );
    const created = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'long job', agent_id: AGENT, tools: ['computer', 'todo'] });
    const prev = created.body.id;
    await readSse(`${harness.svc.url}/v1/turns/${prev}/events`, { stopWhen: (e) => e.event === 'tool.started' && e.json.name === 'command', timeoutMs: 30_000 });

    const r = await doubleText(prev, 'never mind, do this instead', 'interrupt');
    expect(r.status).toBe(202);
    expect(await finished(prev)).toMatchObject({ status: 'cancelled' });
    expect(await finished(r.body.id)).toMatchObject({ status: 'completed', output_text: 'switched to the new request' });

    const reqs = harness.model.requests.slice(first).map((q) => q.body);
    expect(reqs).toHaveLength(3);
    const input = reqs[2].input as any[];
    expect(texts(reqs[2])).toEqual(['long job', 'never mind, do this instead']);
    expect(input.find((i) => i.type === 'function_call_output' && i.call_id === 'call_plan')?.output).toContain('plan kept');
    expect(input.filter((i) => i.type === 'function_call').map((i) => i.call_id)).toEqual(input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id));
  });

  it('interrupt of a turn that never ran keeps its input: the new turn runs on its conversation so far', async () => {
    const first = harness.model.requests.length;
    const answer = (body: ResponsesRequestBody) => ({ output: [message(texts(body).at(-1) === 'c: instead' ? 'did c' : 'did a')] });
    harness.model.push({ output: [functionCall('command', { command: 'sleep 2' })] }, answer, answer);
    const a = await busyTurn('sleep 2', 'a: the job');
    const b = await doubleText(a, 'b: then this', 'enqueue');
    expect(b.status).toBe(202);
    const c = await doubleText(b.body.id, 'c: instead', 'interrupt');
    expect(c.status).toBe(202);
    expect(await finished(b.body.id)).toMatchObject({ status: 'cancelled', started_at: null });
    expect(await finished(c.body.id)).toMatchObject({ status: 'completed', output_text: 'did c' });
    expect(await finished(a)).toMatchObject({ status: 'completed', output_text: 'did a' });
    const cRequest = harness.model.requests.slice(first).map((q) => q.body).find((body) => texts(body).at(-1) === 'c: instead')!;
    expect(texts(cRequest)).toEqual(['a: the job', 'b: then this', 'c: instead']);
  });

  it('steer: the input goes into the running turn as a steering message; 202 with that turn\'s id and steered: true', async () => {
    const first = harness.model.requests.length;
    harness.model.push(
      { output: [functionCall('command', { command: 'sleep 2' })] },
      { output: [message('done, in French as asked')] },
    );
    const prev = await busyTurn('sleep 2');
    const before = (await api(harness.svc.url, 'GET', `/v1/turns?agent_id=${AGENT}&limit=100`)).body.data.length;
    const r = await doubleText(prev, 'answer in French', 'steer');
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ id: prev, steered: true, message_id: expect.stringMatching(/^msg_/), links: { self: `/v1/turns/${prev}` } });
    expect((await api(harness.svc.url, 'GET', `/v1/turns?agent_id=${AGENT}&limit=100`)).body.data.length).toBe(before); // no new turn
    // Also for a client that asked for the event stream: a plain 202, no stream of a new turn.
    const sse = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'and short', agent_id: AGENT, previous_turn_id: prev, multitask_strategy: 'steer' }, { accept: 'text/event-stream' });
    expect(sse.status).toBe(202);
    expect(sse.body).toMatchObject({ id: prev, steered: true });

    expect(await finished(prev)).toMatchObject({ status: 'completed', output_text: 'done, in French as asked' });
    const reqs = harness.model.requests.slice(first).map((q) => q.body);
    expect(reqs).toHaveLength(2);
    expect(texts(reqs[1])).toEqual(['first request', 'answer in French', 'and short']);
    const log = await readSse(`${harness.svc.url}/v1/turns/${prev}/events`);
    expect(log.events.filter((e) => e.event === 'input.applied').map((e) => e.json.message_id)).toEqual([r.body.message_id, sse.body.message_id]);
  });

  it('enqueue twice chains: the second follow-up continues the first, not the busy turn beside it', async () => {
    const first = harness.model.requests.length;
    harness.model.push(
      { output: [functionCall('command', { command: 'sleep 2' })] },
      { output: [message('busy done')] },
      { output: [message('answer one')] },
      { output: [message('answer two')] },
    );
    const prev = await busyTurn('sleep 2', 'busy request');
    const one = await doubleText(prev, 'follow-up one', 'enqueue');
    const two = await doubleText(prev, 'follow-up two', 'enqueue');
    expect([one.status, two.status]).toEqual([202, 202]);
    expect((await harness.svc.services.turnStore.getRequest(two.body.id))?.previous_turn_id).toBe(one.body.id); // put behind the first
    const [t1, t2] = [await finished(one.body.id), await finished(two.body.id)];
    expect([t1.output_text, t2.output_text]).toEqual(['answer one', 'answer two']);
    expect(Date.parse(t2.started_at!)).toBeGreaterThanOrEqual(Date.parse(t1.completed_at!)); // one after the other
    const reqs = harness.model.requests.slice(first).map((q) => q.body);
    expect(texts(reqs.at(-1)!)).toEqual(['busy request', 'follow-up one', 'follow-up two']);
    expect(JSON.stringify(reqs.at(-1)!.input)).toContain('answer one');
  });

  it('interrupt after an enqueue cancels the busy turn and the queued follow-up; the new turn runs on both, losing no message', async () => {
    const first = harness.model.requests.length;
    harness.model.push(
      { output: [functionCall('command', { command: 'sleep 30' }, { callId: 'call_long' })] },
      { output: [message('interrupting answer')] },
    );
    const prev = await busyTurn('sleep 30', 'long request');
    const queued = await doubleText(prev, 'queued follow-up', 'enqueue');
    const now = await doubleText(prev, 'do this instead', 'interrupt');
    expect([queued.status, now.status]).toEqual([202, 202]);
    expect(await finished(now.body.id)).toMatchObject({ status: 'completed', output_text: 'interrupting answer' });
    expect(await finished(prev)).toMatchObject({ status: 'cancelled' });
    expect(await finished(queued.body.id)).toMatchObject({ status: 'cancelled' });
    const reqs = harness.model.requests.slice(first).map((q) => q.body);
    expect(reqs).toHaveLength(2); // the queued follow-up never ran on its own
    expect(texts(reqs[1])).toEqual(['long request', 'queued follow-up', 'do this instead']);
    const started = (await finished(now.body.id)).started_at!;
    expect(Date.parse(started)).toBeGreaterThanOrEqual(Date.parse((await finished(prev)).completed_at!)); // after the busy turn had ended
  });

  it('interrupt twice chains: the second interrupts the first (cancelled, its input kept), not the ended turn beside it; an enqueue after goes behind', async () => {
    const first = harness.model.requests.length;
    harness.model.push(
      { output: [functionCall('command', { command: 'sleep 30' }, { callId: 'call_busy' })] },
      { output: [functionCall('command', { command: 'sleep 30' }, { callId: 'call_int1' })] },
      { output: [message('second interrupt answered')] },
      { output: [message('enqueued after')] },
    );
    const prev = await busyTurn('sleep 30', 'busy');
    const int1 = await doubleText(prev, 'interrupt one', 'interrupt');
    await readSse(`${harness.svc.url}/v1/turns/${int1.body.id}/events`, { stopWhen: (e) => e.event === 'tool.started', timeoutMs: 30_000 }); // prev ended; int1 runs
    expect((await api(harness.svc.url, 'GET', `/v1/turns/${prev}`)).body.status).toBe('cancelled');
    const int2 = await doubleText(prev, 'interrupt two', 'interrupt'); // prev has ended: int1 is what runs now
    const after = await doubleText(prev, 'then this', 'enqueue');
    expect(await finished(int2.body.id)).toMatchObject({ status: 'completed', output_text: 'second interrupt answered' });
    expect(await finished(int1.body.id)).toMatchObject({ status: 'cancelled' });
    expect(await finished(after.body.id)).toMatchObject({ status: 'completed', output_text: 'enqueued after' });
    const reqs = harness.model.requests.slice(first).map((q) => q.body);
    expect(reqs.map(texts)).toEqual([['busy'], ['busy', 'interrupt one'], ['busy', 'interrupt one', 'interrupt two'], ['busy', 'interrupt one', 'interrupt two', 'then this']]);
  });

  it('a strategy on a finished previous turn is a normal continuation', async () => {
    harness.model.push({ output: [message('one')] }, { output: [message('two')] });
    const prev = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'a', agent_id: AGENT, tools: ['todo'] });
    const next = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'b', agent_id: AGENT, tools: ['todo'], previous_turn_id: prev.body.id, multitask_strategy: 'steer' });
    expect(next.body).toMatchObject({ status: 'completed', output_text: 'two' });
    expect(next.body.id).not.toBe(prev.body.id);
  });
});

describe('double-texting a turn that a workflow owns', () => {
  it('refuses to continue, steer or interrupt an active workflow task turn (409 previous_turn_owned); the task is untouched', async () => {
    const prompt = 'owned: a task whose answer is held';
    harness.model.push({ output: [message('late')], holdMs: 15_000 });
    const wf = await api(harness.svc.url, 'POST', '/v1/workflows', { agent_id: AGENT, title: 'owned', concurrency: 1, tasks: [{ label: 't', prompt, result_schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false } }] });
    expect(wf.status).toBe(201);
    const workflows = harness.svc.services.registry.workflows!;
    let taskTurn = '';
    await expect.poll(async () => (taskTurn = (await workflows.get(wf.body.id))!.tasks[0].turn_ids[0] ?? ''), { timeout: 30_000 }).not.toBe('');
    await expect.poll(async () => (await harness.svc.services.turns.get(taskTurn))?.status, { timeout: 30_000 }).toBe('running');
    for (const strategy of [undefined, 'enqueue', 'interrupt', 'steer']) {
      const r = await doubleText(taskTurn, 'take it over', strategy);
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({ code: 'previous_turn_owned', details: { previous_turn_id: taskTurn, kind: 'workflow_task', status: 'running', workflow_id: wf.body.id } });
      expect(r.body.error.message).toMatch(/workflow task/);
    }
    expect((await harness.svc.services.turns.get(taskTurn))?.status).toBe('running');
    expect((await api(harness.svc.url, 'POST', `/v1/workflows/${wf.body.id}/cancel`)).status).toBe(200);
  }, 60_000);
});
