/**
 * GET /metrics: the real service with a scripted model runs turns; the exposition text is parsed
 * by a real Prometheus text parser and the values are checked against what the turns did.
 */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { api, startTestService, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { todoThenAnswer } from '../e2e/support/scripts.js';
import { histogramCount, parseMetrics, sampleValue } from '../support/prometheus.js';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { MODEL_LABEL_LIMIT } from '../../src/telemetry/metrics.js';
import { z } from 'zod';
import { defineWorkerTool, textResult } from '../../src/runtime/tool.js';

const METRIC_NAMES = [
  'turns_total', 'turn_duration_seconds', 'turns_queued', 'turns_running', 'turns_waiting',
  'model_request_duration_seconds', 'model_tokens_total', 'tool_calls_total', 'tool_duration_seconds',
  'sse_subscribers', 'event_log_append_seconds', 'webhook_deliveries_total', 'turn_failures_total', 'trace_export_failed_spans_total',
];

/** GET `path` with `headers` as raw `[name, value, …]` pairs, so a header can be sent twice as two fields. */
function getWithHeaders(url: string, path: string, headers: string[]): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, url), { method: 'GET', headers: ['Host', new URL(url).host, ...headers] });
    req.on('response', (r) => {
      let text = '';
      r.on('data', (c) => (text += c));
      r.on('end', () => resolve({ status: r.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function scrape(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseMetrics(await res.text());
}

describe('GET /metrics after scripted turns', () => {
  const h = useScriptedService();

  it('exposes exactly the documented names plus process metrics', async () => {
    const m = await scrape(h.svc.url);
    for (const name of METRIC_NAMES) expect(m.has(name), name).toBe(true);
    expect(m.get('turns_total')!.type).toBe('COUNTER');
    expect(m.get('turn_duration_seconds')!.type).toBe('HISTOGRAM');
    expect(m.get('turns_running')!.type).toBe('GAUGE');
    expect(m.has('process_cpu_user_seconds_total')).toBe(true);
    expect(m.has('nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('counts turns by status, model requests by outcome, tokens, tool calls and their durations', async () => {
    const before = await scrape(h.svc.url);
    // A tool round (todo), then an answer: two model requests with 10+5 tokens each (scripted usage).
    h.model.push(todoThenAnswer, todoThenAnswer);
    const ok = await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'plan it', tools: ['todo'] });
    expect(ok.body.status).toBe('completed');
    h.model.push({ streamError: { code: 'server_error', message: 'boom' } });
    const failed = await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'fail' });
    expect(failed.body.status).toBe('failed');

    const m = await scrape(h.svc.url);
    const delta = (name: string, labels?: Record<string, string>) => sampleValue(m, name, labels) - sampleValue(before, name, labels);
    expect(delta('turns_total', { status: 'completed', stop_reason: 'stop' })).toBe(1);
    expect(delta('turns_total', { status: 'failed', stop_reason: 'none' })).toBe(1);
    expect(histogramCount(m, 'turn_duration_seconds') - histogramCount(before, 'turn_duration_seconds')).toBe(2);
    expect(histogramCount(m, 'model_request_duration_seconds', { model: 'scripted-model', outcome: 'ok' }) - histogramCount(before, 'model_request_duration_seconds', { model: 'scripted-model', outcome: 'ok' })).toBe(2);
    expect(histogramCount(m, 'model_request_duration_seconds', { model: 'scripted-model', outcome: 'failed' }) - histogramCount(before, 'model_request_duration_seconds', { model: 'scripted-model', outcome: 'failed' })).toBe(1);
    expect(delta('model_tokens_total', { direction: 'input' })).toBe(20);
    expect(delta('model_tokens_total', { direction: 'output' })).toBe(10);
    expect(delta('tool_calls_total', { tool: 'todo', outcome: 'ok' })).toBe(1);
    expect(histogramCount(m, 'tool_duration_seconds', { tool: 'todo' }) - histogramCount(before, 'tool_duration_seconds', { tool: 'todo' })).toBe(1);
    // turn.started, tool.started, presentation, tool.completed, deltas, message.completed, terminal…
    expect(histogramCount(m, 'event_log_append_seconds') - histogramCount(before, 'event_log_append_seconds')).toBeGreaterThanOrEqual(8);
    expect(sampleValue(m, 'turns_running')).toBe(0);
    expect(sampleValue(m, 'turns_queued')).toBe(0);
  });

  it('labels a tool name the model made up as tool="unknown", and a tool of the turn by its name', async () => {
    const before = await scrape(h.svc.url);
    const invented = `x${'y'.repeat(299)}`;
    h.model.push({ output: [functionCall(invented, {}), functionCall('todo', { todos: [{ id: '1', content: 'a', status: 'in_progress' }] })] }, { output: [message('ok')] });
    const done = await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'call things', tools: ['todo'] });
    expect(done.body.status).toBe('completed');
    const m = await scrape(h.svc.url);
    const delta = (name: string, labels: Record<string, string>) => sampleValue(m, name, labels) - sampleValue(before, name, labels);
    expect(delta('tool_calls_total', { tool: 'unknown', outcome: 'error' })).toBe(1);
    expect(delta('tool_calls_total', { tool: 'todo', outcome: 'ok' })).toBe(1);
    expect(histogramCount(m, 'tool_duration_seconds', { tool: 'unknown' }) - histogramCount(before, 'tool_duration_seconds', { tool: 'unknown' })).toBe(1);
    expect(m.get('tool_calls_total')!.metrics.some((s) => s.labels?.tool === invented)).toBe(false);
  });

  it('counts failed turns by error code: a known code by name, any other as error_code="other"', async () => {
    const before = await scrape(h.svc.url);
    h.model.push({ streamError: { code: 'invalid_api_key', message: 'bad key' } });
    expect((await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'fail 1' })).body.status).toBe('failed');
    h.model.push({ streamError: { code: 'made_up_code_123', message: 'odd' } });
    expect((await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'fail 2' })).body.status).toBe('failed');
    const m = await scrape(h.svc.url);
    const delta = (labels: Record<string, string>) => sampleValue(m, 'turn_failures_total', labels) - sampleValue(before, 'turn_failures_total', labels);
    expect(delta({ error_code: 'invalid_api_key' })).toBe(1);
    expect(delta({ error_code: 'other' })).toBe(1);
    expect(m.get('turn_failures_total')!.metrics.some((s) => s.labels?.error_code === 'made_up_code_123')).toBe(false);
  });

  it(`keeps the configured MODEL and the first ${MODEL_LABEL_LIMIT} other requested models as model labels, then model="other"`, async () => {
    const before = await scrape(h.svc.url);
    const models = Array.from({ length: MODEL_LABEL_LIMIT + 2 }, (_, i) => `client-model-${i}`);
    for (const model of models) {
      h.model.push({ output: [message('hi')] });
      expect((await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi', model })).body.status).toBe('completed');
    }
    h.model.push({ output: [message('hi')] });
    expect((await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' })).body.status).toBe('completed');
    const m = await scrape(h.svc.url);
    const count = (model: string) => histogramCount(m, 'model_request_duration_seconds', { model, outcome: 'ok' }) - histogramCount(before, 'model_request_duration_seconds', { model, outcome: 'ok' });
    for (const model of models.slice(0, MODEL_LABEL_LIMIT)) expect(count(model), model).toBe(1);
    expect(count(models[MODEL_LABEL_LIMIT])).toBe(0);
    expect(count('other')).toBe(2);
    // MODEL keeps its own series whatever came before it.
    expect(count('scripted-model')).toBe(1);
  });

  it('counts open SSE subscribers while a stream is live, and not after it closed', async () => {
    h.model.push({ output: [message('slow answer', { chunks: ['slow ', 'answer'] })], delayMs: 100 });
    const created = await api(h.svc.url, 'POST', '/v1/turns', { input: 'slow' });
    const stream = readSse(`${h.svc.url}/v1/turns/${created.body.id}/events`);
    const subscribers = async () => sampleValue(await scrape(h.svc.url), 'sse_subscribers');
    await expect.poll(subscribers, { timeout: 5000, interval: 20 }).toBe(1);
    const done = await stream;
    expect(done.events.at(-1)!.event).toBe('turn.completed');
    await expect.poll(subscribers, { timeout: 5000, interval: 20 }).toBe(0);
  });
});

describe('GET /metrics access', () => {
  it('with AUTH_TOKENS: an API token or METRICS_TOKEN opens /metrics; METRICS_TOKEN opens nothing else', async () => {
    const svc = await startTestService({ env: { AUTH_TOKENS: 'api-token-1234567890', METRICS_TOKEN: 'scrape-token-4567890' } });
    try {
      expect((await fetch(`${svc.url}/metrics`)).status).toBe(401);
      expect((await fetch(`${svc.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-xxxxxxx' } })).status).toBe(401);
      expect((await fetch(`${svc.url}/metrics`, { headers: { authorization: 'Bearer scrape-token-4567890' } })).status).toBe(200);
      expect((await fetch(`${svc.url}/metrics`, { headers: { authorization: 'Bearer api-token-1234567890' } })).status).toBe(200);
      expect((await fetch(`${svc.url}/v1/turns`, { headers: { authorization: 'Bearer scrape-token-4567890' } })).status).toBe(401);
      // The refusals on /metrics name METRICS_TOKEN and how a scraper sends it, not the API's generic wording.
      expect((await (await fetch(`${svc.url}/metrics`)).json()).error).toEqual({
        code: 'unauthorized',
        message: 'missing bearer token: GET /metrics needs Authorization: Bearer <METRICS_TOKEN> (or one of AUTH_TOKENS; in a Prometheus scrape config: authorization: {credentials: <METRICS_TOKEN>})',
        details: { reason: 'missing_token', expected: 'Authorization: Bearer <METRICS_TOKEN>' },
      });
      expect((await (await fetch(`${svc.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-xxxxxxx' } })).json()).error.message).toBe(
        'invalid bearer token: it is neither METRICS_TOKEN nor one of AUTH_TOKENS; GET /metrics needs Authorization: Bearer <METRICS_TOKEN> (or one of AUTH_TOKENS)',
      );
      // Other routes keep the API's wording.
      expect((await (await fetch(`${svc.url}/v1/turns`)).json()).error.message).toBe('missing bearer token (Authorization: Bearer <token>)');
    } finally {
      await svc.close();
    }
  });

  it('with AUTH_TOKENS and no METRICS_TOKEN: the 401 on /metrics says how a scrape config sends an API token, and that METRICS_TOKEN opens /metrics alone', async () => {
    const svc = await startTestService({ env: { AUTH_TOKENS: 'api-token-1234567890' } });
    try {
      const refused = await fetch(`${svc.url}/metrics`);
      expect(refused.status).toBe(401);
      expect((await refused.json()).error).toEqual({
        code: 'unauthorized',
        message: 'missing bearer token: GET /metrics needs Authorization: Bearer <one of AUTH_TOKENS> (in a Prometheus scrape config: authorization: {credentials: <token>}; set METRICS_TOKEN for a token that opens only /metrics)',
        details: { reason: 'missing_token', expected: 'Authorization: Bearer <token>' },
      });
      const wrong = await fetch(`${svc.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-xxxxxxx' } });
      expect((await wrong.json()).error.message).toBe(
        'invalid bearer token: it is none of the tokens in AUTH_TOKENS; GET /metrics needs Authorization: Bearer <one of AUTH_TOKENS> (set METRICS_TOKEN for a token that opens only /metrics)',
      );
      expect((await fetch(`${svc.url}/metrics`, { headers: { authorization: 'Bearer api-token-1234567890' } })).status).toBe(200);
    } finally {
      await svc.close();
    }
  });

  it('with only METRICS_TOKEN: /metrics needs it, the rest of the loopback API stays open', async () => {
    const svc = await startTestService({ env: { METRICS_TOKEN: 'scrape-token-4567890' } });
    try {
      const refused = await fetch(`${svc.url}/metrics`);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer');
      const expected = 'Authorization: Bearer <METRICS_TOKEN>';
      // Like the API's 401s: what was wrong, and how to send the token (a scraper's config too).
      expect((await refused.json()).error).toEqual({
        code: 'unauthorized',
        message: 'missing bearer token: GET /metrics needs Authorization: Bearer <METRICS_TOKEN> (in a Prometheus scrape config: authorization: {credentials: <METRICS_TOKEN>})',
        details: { reason: 'missing_token', expected },
      });
      const wrong = await fetch(`${svc.url}/metrics`, { headers: { authorization: 'Bearer not-the-scrape-token' } });
      expect((await wrong.json()).error).toEqual({
        code: 'unauthorized',
        message: 'invalid bearer token: it is not METRICS_TOKEN; GET /metrics needs Authorization: Bearer <METRICS_TOKEN>',
        details: { reason: 'invalid_token', expected },
      });
      const basic = await fetch(`${svc.url}/metrics`, { headers: { authorization: 'Basic c2NyYXBlOnNjcmFwZS10b2tlbi00NTY3ODkw' } });
      expect((await basic.json()).error).toEqual({
        code: 'unauthorized',
        message: 'the Authorization header uses the Basic scheme; this service takes only a bearer token: send Authorization: Bearer <METRICS_TOKEN>',
        details: { reason: 'not_bearer', expected },
      });
      const inUrl = await fetch(`${svc.url}/metrics?token=scrape-token-4567890`);
      expect(inUrl.status).toBe(401);
      const inUrlBody = await inUrl.text();
      expect(JSON.parse(inUrlBody).error).toEqual({
        code: 'unauthorized',
        message: 'tokens in the URL are not accepted (query parameter token): send Authorization: Bearer <METRICS_TOKEN> instead',
        details: { reason: 'token_in_url', parameter: 'token', expected },
      });
      expect(inUrlBody).not.toContain('scrape-token-4567890');
      expect((await fetch(`${svc.url}/metrics`, { headers: { authorization: 'Bearer scrape-token-4567890' } })).status).toBe(200);
      expect((await fetch(`${svc.url}/v1/turns`)).status).toBe(200);
      // Two Authorization headers: refused whichever comes first (Node reads only the first).
      for (const pair of [['Bearer scrape-token-4567890', 'Bearer x'], ['Bearer x', 'Bearer scrape-token-4567890']]) {
        const twice = await getWithHeaders(svc.url, '/metrics', ['Authorization', pair[0], 'Authorization', pair[1]]);
        expect(twice.status, pair.join(' + ')).toBe(400);
        expect(JSON.parse(twice.text).error).toEqual({
          code: 'invalid_request',
          message: 'the Authorization header is given 2 times; give it once: send one Authorization: Bearer <METRICS_TOKEN>',
          details: [{ path: 'headers.authorization', code: 'duplicate_header', message: 'is given 2 times; give it once' }],
        });
      }
    } finally {
      await svc.close();
    }
  });
});

describe('tool_calls_total for deferred tools', () => {
  /** Deferred tools (found with tool_search) and one sent with every request, all taking `{location}`. */
  const tool = (name: string, deferLoading: boolean) =>
    defineWorkerTool({ name, description: `${name} at a location`, schema: z.object({ location: z.string() }), deferLoading, executionMode: 'sequential', describeActivity: (p) => `${name} ${p.location}`, execute: async (p) => textResult(`${name}(${p.location})`) });
  const h = useScriptedService({ overrides: { assembleTools: async () => ({ tools: [tool('get_weather', true), tool('search_files', true), tool('lookup', false)], unavailable: [], instructions: [] }) } });

  it('labels a call of a deferred tool whose arguments did not validate by its name, loaded or not; a made-up name stays unknown', async () => {
    const before = await scrape(h.svc.url);
    h.model.push(
      // get_weather never loaded, search_files loaded first: both called without their `location`.
      { output: [functionCall('tool_search', { query: 'search files' })] },
      { output: [functionCall('get_weather', {}), functionCall('search_files', { where: 'x' }), functionCall('made_up_tool', {})] },
      { output: [message('ok')] },
    );
    const done = await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'call deferred tools' });
    expect(done.body.status).toBe('completed');
    const events = (await readSse(`${h.svc.url}/v1/turns/${done.body.id}/events`)).events;
    expect(events[0].json).toMatchObject({ type: 'turn.started', tools: ['lookup', 'tool_search'], deferred_tools: ['get_weather', 'search_files'] });
    const completed = events.filter((e) => e.event === 'tool.completed').map((e) => [e.json.name, e.json.is_error]);
    expect(completed).toEqual([['tool_search', false], ['get_weather', true], ['search_files', true], ['made_up_tool', true]]);
    const m = await scrape(h.svc.url);
    const delta = (labels: Record<string, string>) => sampleValue(m, 'tool_calls_total', labels) - sampleValue(before, 'tool_calls_total', labels);
    expect(delta({ tool: 'get_weather', outcome: 'error' })).toBe(1);
    expect(delta({ tool: 'search_files', outcome: 'error' })).toBe(1);
    expect(delta({ tool: 'tool_search', outcome: 'ok' })).toBe(1);
    expect(delta({ tool: 'unknown', outcome: 'error' })).toBe(1);
  });
});
