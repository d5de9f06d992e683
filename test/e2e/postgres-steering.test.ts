/**
 * Steering with two real service processes on one real Postgres: messages sent to BOTH instances
 * while one of them runs the turn's command (one through POST /v1/turns/{id}/messages, one as a
 * double-text with `multitask_strategy: steer`) reach the model exactly once each, in the order
 * they were stored, in the request after the command — whichever instance runs the turn. And
 * follow-ups (`enqueue`) sent at once — to one instance, or spread over both — chain instead of
 * continuing the same turn.
 */
import { beforeAll, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { describePostgres } from '../support/postgres.js';
import { usePgInstances } from './support/pg-instances.js';
import { readSse } from './support/sse-client.js';
import { api } from './support/service.js';

describePostgres('steering across two instances on one Postgres', () => {
  const pg = usePgInstances({ name: 'steer' });
  const urls: string[] = [];

  beforeAll(async () => {
    urls.push(...(await Promise.all(['a', 'b'].map((name) => pg.start(name)))).map((i) => i.url));
  }, 200_000);

  it('messages sent to either instance are applied once each, in order, by the instance running the turn', async () => {
    const [a, b] = urls;
    pg.model.push({ output: [functionCall('command', { command: 'sleep 3' }, { callId: 'call_wait' })] }, { output: [message('done with both notes')] });
    const created = await api(a, 'POST', '/v1/turns', { input: 'wait a bit', tools: ['computer'] });
    expect(created.status).toBe(202);
    const id: string = created.body.id;
    await readSse(`${b}/v1/turns/${id}/events`, { stopWhen: (e) => e.event === 'tool.started', timeoutMs: 120_000 });

    const first = await api(b, 'POST', `/v1/turns/${id}/messages`, { content: 'note one (via B)' });
    expect(first.status).toBe(202);
    const second = await api(a, 'POST', '/v1/turns', { input: 'note two (via A)', previous_turn_id: id, multitask_strategy: 'steer' });
    expect(second.body).toMatchObject({ id, steered: true });
    expect(first.body.position).toBe(1);

    const events = (await readSse(`${a}/v1/turns/${id}/events`, { timeoutMs: 120_000 })).events;
    expect(events.at(-1)?.json).toMatchObject({ type: 'turn.completed', output_text: 'done with both notes' });
    expect(events.filter((e) => e.event === 'input.applied').map((e) => e.json.message_id)).toEqual([first.body.message_id, second.body.message_id]);

    const last = pg.model.requests.at(-1)!.body.input as { role?: string; type?: string; call_id?: string; content?: unknown }[];
    const users = last.filter((i) => i.role === 'user').map((i) => i.content);
    expect(users).toEqual(['wait a bit', 'note one (via B)', 'note two (via A)']);
    const out = last.findIndex((i) => i.type === 'function_call_output' && i.call_id === 'call_wait');
    expect(last[out + 1]).toMatchObject({ role: 'user', content: 'note one (via B)' });
  }, 300_000);

  it('enqueues sent at once to one instance chain: each continues a different turn, and they run one after the other', async () => {
    const [a] = urls;
    pg.model.push(
      { output: [functionCall('command', { command: 'sleep 3' }, { callId: 'call_busy' })] },
      { output: [message('busy done')] },
      ...['a', 'b', 'c', 'd'].map((x) => ({ output: [message(`answer ${x}`)] })),
    );
    const created = await api(a, 'POST', '/v1/turns', { input: 'busy', tools: ['computer'] });
    const prev: string = created.body.id;
    await readSse(`${a}/v1/turns/${prev}/events`, { stopWhen: (e) => e.event === 'tool.started', timeoutMs: 120_000 });
    const sent = await Promise.all(['a', 'b', 'c', 'd'].map((x) => api(a, 'POST', '/v1/turns', { input: `at once ${x}`, tools: ['computer'], previous_turn_id: prev, multitask_strategy: 'enqueue' })));
    expect(sent.map((r) => r.status)).toEqual([202, 202, 202, 202]);
    const records = await Promise.all(sent.map(async (r) => (await readSse(`${a}/v1/turns/${r.body.id}/events`, { timeoutMs: 120_000 })).events.at(-1)!.json));
    expect(records.map((e) => e.type)).toEqual(['turn.completed', 'turn.completed', 'turn.completed', 'turn.completed']);
    // Each follow-up's last request carries every earlier follow-up of the chain: one chain, no two beside each other.
    const seen = pg.model.requests.slice(-4).map((q) => (q.body.input as { role?: string; content?: unknown }[]).filter((i) => i.role === 'user').length);
    expect(seen).toEqual([2, 3, 4, 5]);
  }, 300_000);

  it('enqueues sent at once to two instances chain too: one chain across both, each continuing the one created before it', async () => {
    const [a, b] = urls;
    const names = ['a1', 'b1', 'a2', 'b2', 'a3', 'b3'];
    pg.model.push(
      { output: [functionCall('command', { command: 'sleep 3' }, { callId: 'call_busy2' })] },
      { output: [message('busy done')] },
      ...names.map((x) => ({ output: [message(`answer ${x}`)] })),
    );
    const created = await api(a, 'POST', '/v1/turns', { input: 'busy across', tools: ['computer'] });
    const prev: string = created.body.id;
    await readSse(`${a}/v1/turns/${prev}/events`, { stopWhen: (e) => e.event === 'tool.started', timeoutMs: 120_000 });
    const sent = await Promise.all(names.map((x) => api(x.startsWith('a') ? a : b, 'POST', '/v1/turns', { input: `across ${x}`, tools: ['computer'], previous_turn_id: prev, multitask_strategy: 'enqueue' })));
    expect(sent.map((r) => r.status)).toEqual(names.map(() => 202));
    const ids = sent.map((r) => r.body.id as string);
    const records = await Promise.all(ids.map(async (id) => (await readSse(`${b}/v1/turns/${id}/events`, { timeoutMs: 120_000 })).events.at(-1)!.json));
    expect(records.map((e) => e.type)).toEqual(names.map(() => 'turn.completed'));
    // One chain: ordered by id (creation), each follow-up continues the one before it, the first `prev`.
    const turns = (await Promise.all(ids.map(async (id) => (await api(a, 'GET', `/v1/turns/${id}`)).body))).sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(turns.map((t) => t.previous_turn_id)).toEqual([prev, ...turns.slice(0, -1).map((t) => t.id)]);
    const seen = pg.model.requests.slice(-names.length).map((q) => (q.body.input as { role?: string }[]).filter((i) => i.role === 'user').length);
    expect(seen).toEqual(names.map((_, i) => i + 2));
  }, 300_000);
});
