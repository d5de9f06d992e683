/**
 * A model that stalls cannot hold a turn (and a MAX_CONCURRENT_TURNS slot) forever: the real
 * service and the real openai SDK against a scripted Responses server that stops sending mid-stream
 * or never sends its response headers, or streams too slowly. Small limits here (MODEL_IDLE_TIMEOUT_MS
 * 400 ms / 1 s, MODEL_REQUEST_TIMEOUT_MS 1.5 s, MODEL_MAX_RETRIES 1 / 0).
 */
import { describe, expect, it } from 'vitest';
import { message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from './support/service.js';
import { readSse } from './support/sse-client.js';

const harness = useScriptedService({ env: { MODEL_IDLE_TIMEOUT_MS: '400', MODEL_REQUEST_TIMEOUT_MS: '1500', MODEL_MAX_RETRIES: '1' } });

async function runTurn(): Promise<{ body: any; ms: number }> {
  const t0 = Date.now();
  const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hello' });
  expect(r.status).toBe(200);
  return { body: r.body, ms: Date.now() - t0 };
}

describe('model stream time limits', () => {
  it('fails the turn with model_timeout when the stream stops mid-way, without sending the request again', async () => {
    const before = harness.model.requests.length;
    // created, in_progress, output_item.added, content_part.added, the first text delta; then nothing.
    harness.model.push({ output: [message('a long answer that never finishes')], cutAfter: 5, cutMode: 'stall' });
    const { body, ms } = await runTurn();
    expect(body.status).toBe('failed');
    expect(body.error).toMatchObject({ code: 'model_timeout' });
    expect(body.error.message).toBe(`the model endpoint ${harness.model.baseURL} sent nothing for 0.4 s (MODEL_IDLE_TIMEOUT_MS)`);
    expect(harness.model.requests.length - before).toBe(1);
    expect(ms).toBeLessThan(10_000);
  });

  it('sends a request again that stalled after response.created and response.in_progress only, and streams the retry\'s answer once', async () => {
    const before = harness.model.requests.length;
    harness.model.push({ output: [message('never shown')], cutAfter: 2, cutMode: 'stall' }, { output: [message('the retry answers')] });
    const created = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'hello' });
    const stream = await readSse(`${harness.svc.url}/v1/turns/${created.body.id}/events`);
    expect(stream.events.at(-1)?.json).toMatchObject({ type: 'turn.completed', output_text: 'the retry answers' });
    expect(stream.events.filter((e) => e.event === 'message.delta').map((e) => e.json.text).join('')).toBe('the retry answers');
    expect(stream.events.filter((e) => e.event === 'message.completed')).toHaveLength(1);
    expect(harness.model.requests.length - before).toBe(2);
  });

  it('fails with model_timeout after the retries when every attempt stalls after response.in_progress', async () => {
    const before = harness.model.requests.length;
    const stall = { output: [message('never shown')], cutAfter: 2, cutMode: 'stall' as const };
    harness.model.push(stall, stall);
    const { body } = await runTurn();
    expect(body).toMatchObject({ status: 'failed', error: { code: 'model_timeout', message: `the model endpoint ${harness.model.baseURL} sent nothing for 0.4 s (MODEL_IDLE_TIMEOUT_MS) on each of 2 attempts` } });
    expect(harness.model.requests.length - before).toBe(2);
  });

  it('sends a request again when no response headers came, then fails with model_timeout after the retries', async () => {
    const before = harness.model.requests.length;
    harness.model.push({ output: [message('late')], holdMs: 30_000 }, { output: [message('late')], holdMs: 30_000 });
    const { body, ms } = await runTurn();
    expect(body.status).toBe('failed');
    expect(body.error).toMatchObject({ code: 'model_timeout' });
    expect(body.error.message).toContain('on each of 2 attempts');
    expect(harness.model.requests.length - before).toBe(2);
    expect(ms).toBeLessThan(10_000);
  });

  it('completes the turn when the retry answers', async () => {
    harness.model.push({ output: [message('late')], holdMs: 30_000 }, { output: [message('on time')] });
    const { body } = await runTurn();
    expect(body).toMatchObject({ status: 'completed', output_text: 'on time' });
  });
});

describe('the request time limit', () => {
  const slow = useScriptedService({ env: { MODEL_IDLE_TIMEOUT_MS: '1000', MODEL_REQUEST_TIMEOUT_MS: '1500', MODEL_MAX_RETRIES: '0' } });

  it('ends a request that keeps streaming slowly past MODEL_REQUEST_TIMEOUT_MS', async () => {
    // A delta every 100 ms: never idle for 1 s, but the 30 deltas would take over 3 s.
    slow.model.push({ output: [message('x'.repeat(30), { chunks: Array.from({ length: 30 }, () => 'x') })], delayMs: 100 });
    const t0 = Date.now();
    const r = await api(slow.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hello' });
    expect(r.body.status).toBe('failed');
    expect(r.body.error).toMatchObject({ code: 'model_timeout' });
    expect(r.body.error.message).toBe(`the request to the model endpoint ${slow.model.baseURL} took longer than 1.5 s (MODEL_REQUEST_TIMEOUT_MS)`);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });
});
