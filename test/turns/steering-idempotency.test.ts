/**
 * Idempotent steering: the same Idempotency-Key with the same body on a `steer` double-text or on
 * POST /v1/turns/{id}/messages queues the message once and answers the first 202 (header
 * `Idempotent-Replayed: true`), also when both requests arrive at once and once the turn has
 * finished; the same key with another body is 409 `idempotency_key_reused`. Real service,
 * scripted model (its request log shows how often the model saw the message), a real command.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message, type ResponsesRequestBody } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { validateResponse } from '../e2e/support/spec.js';

const harness = useScriptedService();
const AGENT = 'steer-idem';

const userCount = (body: ResponsesRequestBody, text: string) =>
  (body.input as { role?: string; content?: unknown }[]).filter((i) => i.role === 'user' && JSON.stringify(i.content).includes(text)).length;

/** A turn whose first round runs a 2 s command; resolves once the command runs. */
async function busyTurn(): Promise<string> {
  harness.model.push({ output: [functionCall('command', { command: 'sleep 2' })] }, { output: [message('done')] });
  const created = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'work', agent_id: AGENT, tools: ['computer'] });
  await readSse(`${harness.svc.url}/v1/turns/${created.body.id}/events`, { stopWhen: (e) => e.event === 'tool.started', timeoutMs: 30_000 });
  return created.body.id;
}

async function queuedIds(id: string): Promise<string[]> {
  const log = await readSse(`${harness.svc.url}/v1/turns/${id}/events`, { timeoutMs: 30_000 });
  return log.events.filter((e) => e.event === 'input.queued').map((e) => e.json.message_id);
}

describe('steering with an Idempotency-Key', () => {
  it('a repeated steer double-text queues the message once and answers the first response; another body is 409', async () => {
    const first = harness.model.requests.length;
    const prev = await busyTurn();
    const key = { 'idempotency-key': 'steer-once' };
    const body = { input: 'use staging', agent_id: AGENT, previous_turn_id: prev, multitask_strategy: 'steer' };
    const a = await api(harness.svc.url, 'POST', '/v1/turns', body, key);
    const b = await api(harness.svc.url, 'POST', '/v1/turns', body, key);
    for (const r of [a, b]) expect(validateResponse('/v1/turns', 'post', r.status, r.body)).toEqual([]);
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(b.body).toMatchObject({ id: prev, steered: true, message_id: a.body.message_id });
    expect([a.headers.get('idempotent-replayed'), b.headers.get('idempotent-replayed')]).toEqual([null, 'true']);

    const other = await api(harness.svc.url, 'POST', '/v1/turns', { ...body, input: 'use production' }, key);
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: 'idempotency_key_reused', details: { message_id: a.body.message_id } });

    expect(await queuedIds(prev)).toEqual([a.body.message_id]);
    const reqs = harness.model.requests.slice(first).map((r) => r.body);
    expect(userCount(reqs[1], 'use staging')).toBe(1);
    expect(userCount(reqs[1], 'use production')).toBe(0);
    // Once the turn has finished, the retry still answers the first response (not a new turn).
    const late = await api(harness.svc.url, 'POST', '/v1/turns', body, key);
    expect(late.status).toBe(202);
    expect(late.body).toMatchObject({ id: prev, status: 'completed', steered: true, message_id: a.body.message_id });
  });

  it('POST /v1/turns/{id}/messages: one message for two racing requests with one key, replayed after the turn ended; another body is 409', async () => {
    const id = await busyTurn();
    const key = { 'idempotency-key': 'message-once' };
    const send = (content: string) => api(harness.svc.url, 'POST', `/v1/turns/${id}/messages`, { content }, key);
    const [a, b] = await Promise.all([send('keep it short'), send('keep it short')]);
    for (const r of [a, b]) expect(validateResponse('/v1/turns/{id}/messages', 'post', r.status, r.body)).toEqual([]);
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(b.body).toEqual(a.body);
    expect([a.headers.get('idempotent-replayed'), b.headers.get('idempotent-replayed')].sort()).toEqual(['true', null].sort());

    const other = await send('make it long');
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: 'idempotency_key_reused', details: { message_id: a.body.message_id } });
    const elsewhere = await api(harness.svc.url, 'POST', `/v1/turns/${await busyTurn()}/messages`, { content: 'keep it short' }, key);
    expect(elsewhere.status).toBe(409); // the same key on another turn is another request

    expect(await queuedIds(id)).toEqual([a.body.message_id]);
    const replay = await send('keep it short');
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual(a.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });
});
