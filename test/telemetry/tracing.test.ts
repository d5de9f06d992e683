/**
 * Turn traces, collected in-process with the SDK's in-memory exporter from the real service
 * (scripted model, real HTTP): the span tree of one turn, its GenAI attributes, the parent taken
 * from the caller's `traceparent`, the trace id on the record and on `turn.started`, and content
 * recorded only with OTEL_RECORD_CONTENT=true.
 */
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../e2e/support/service.js';
import { todoThenAnswer } from '../e2e/support/scripts.js';
import { readSse } from '../e2e/support/sse-client.js';
import { message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;

async function withTracedService(env: Record<string, string>, fn: (svc: TestService, model: ScriptedResponsesServer, spans: () => ReadableSpan[]) => Promise<void>) {
  const model = await startScriptedResponsesServer();
  const exporter = new InMemorySpanExporter();
  const svc = await startTestService({ modelBaseURL: model.baseURL, env, overrides: { spanExporter: exporter } });
  try {
    await fn(svc, model, () => exporter.getFinishedSpans());
  } finally {
    await svc.close();
    await model.close();
  }
}

const byName = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
const idOf = (s: ReadableSpan) => s.spanContext().spanId;

describe('the trace of one turn', () => {
  it('invoke_agent under the caller traceparent, with chat and execute_tool children and GenAI attributes', async () => {
    await withTracedService({}, async (svc, model, spans) => {
      model.push(todoThenAnswer, todoThenAnswer);
      const res = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'plan the trip', tools: ['todo'], agent_id: 'traveller' }, { traceparent: TRACEPARENT });
      expect(res.body.status).toBe('completed');
      expect(res.body.trace_id).toBe(CALLER_TRACE);
      await expect.poll(() => byName(spans(), 'invoke_agent').length).toBe(1);

      const all = spans();
      const agent = byName(all, 'invoke_agent')[0];
      expect(agent.spanContext().traceId).toBe(CALLER_TRACE);
      expect(agent.parentSpanContext?.spanId).toBe(CALLER_SPAN);
      expect(agent.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.id': 'traveller',
        'gen_ai.request.model': 'scripted-model',
        'turn.id': res.body.id,
        'turn.status': 'completed',
        'turn.stop_reason': 'stop',
        'turn.steps': 2,
        'gen_ai.usage.input_tokens': 20,
        'gen_ai.usage.output_tokens': 10,
      });

      const chats = byName(all, 'chat scripted-model');
      expect(chats).toHaveLength(2);
      for (const chat of chats) {
        expect(chat.parentSpanContext?.spanId).toBe(idOf(agent));
        expect(chat.spanContext().traceId).toBe(CALLER_TRACE);
        expect(chat.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'scripted-model', 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 5 });
        expect(chat.attributes['gen_ai.response.id']).toMatch(/^resp_/);
        expect(chat.attributes['gen_ai.input.messages']).toBeUndefined();
      }

      const tools = byName(all, 'execute_tool todo');
      expect(tools).toHaveLength(1);
      expect(tools[0].parentSpanContext?.spanId).toBe(idOf(agent));
      expect(tools[0].attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'todo', 'turn.tool.outcome': 'ok', 'turn.tool.repaired': false });
      expect(tools[0].attributes['gen_ai.tool.call.id']).toEqual(expect.any(String));
      expect(tools[0].attributes['gen_ai.tool.call.arguments']).toBeUndefined();
      // The tool ran between the two model requests.
      const ms = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6;
      expect(ms(tools[0].startTime)).toBeGreaterThanOrEqual(ms(chats[0].endTime) - 1);
      expect(ms(tools[0].endTime)).toBeLessThanOrEqual(ms(chats[1].startTime) + 1);

      // The HTTP server span of the request, in the caller's trace too.
      const http = byName(all, 'POST /v1/turns');
      expect(http).toHaveLength(1);
      expect(http[0].spanContext().traceId).toBe(CALLER_TRACE);
      expect(http[0].parentSpanContext?.spanId).toBe(CALLER_SPAN);

      const events = await readSse(`${svc.url}/v1/turns/${res.body.id}/events`);
      expect(events.events[0].json).toMatchObject({ type: 'turn.started', trace_id: CALLER_TRACE });
    });
  });

  it('without traceparent the turn starts its own trace: invoke_agent is a root span with the stored trace id', async () => {
    await withTracedService({}, async (svc, model, spans) => {
      model.push({ streamError: { code: 'server_error', message: 'boom' } });
      const res = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'fail please' });
      expect(res.body.status).toBe('failed');
      expect(res.body.trace_id).toMatch(/^[0-9a-f]{32}$/);
      await expect.poll(() => byName(spans(), 'invoke_agent').length).toBe(1);
      const agent = byName(spans(), 'invoke_agent')[0];
      expect(agent.parentSpanContext).toBeUndefined();
      expect(agent.spanContext().traceId).toBe(res.body.trace_id);
      expect(agent.attributes).toMatchObject({ 'turn.status': 'failed', 'error.type': 'server_error' });
      expect(agent.status.code).toBe(2); // ERROR
      const chat = byName(spans(), 'chat scripted-model')[0];
      expect(chat.attributes['error.type']).toBe('server_error');
    });
  });

  it('records prompts, arguments and outputs only with OTEL_RECORD_CONTENT=true', async () => {
    await withTracedService({ OTEL_RECORD_CONTENT: 'true' }, async (svc, model, spans) => {
      model.push(todoThenAnswer, todoThenAnswer);
      const res = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'secret plan', tools: ['todo'] });
      expect(res.body.status).toBe('completed');
      await expect.poll(() => byName(spans(), 'invoke_agent').length).toBe(1);
      const chat = byName(spans(), 'chat scripted-model')[0];
      expect(String(chat.attributes['gen_ai.input.messages'])).toContain('secret plan');
      const tool = byName(spans(), 'execute_tool todo')[0];
      expect(String(tool.attributes['gen_ai.tool.call.arguments'])).toContain('secret plan');
      expect(tool.attributes['gen_ai.tool.call.result']).toEqual(expect.any(String));
      expect(String(byName(spans(), 'chat scripted-model')[1].attributes['gen_ai.output.messages'])).toContain('done: secret plan');
    });
  });
});

describe('tracing off', () => {
  it('the record and turn.started still carry the trace id, taken from traceparent when given', async () => {
    const model = await startScriptedResponsesServer();
    const svc = await startTestService({ modelBaseURL: model.baseURL });
    try {
      expect(svc.services.tracing).toBeUndefined();
      model.push({ output: [message('hi')] });
      const res = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' }, { traceparent: TRACEPARENT });
      expect(res.body.trace_id).toBe(CALLER_TRACE);
      const events = await readSse(`${svc.url}/v1/turns/${res.body.id}/events`);
      expect(events.events[0].json).toMatchObject({ type: 'turn.started', trace_id: CALLER_TRACE });
      // A malformed traceparent is ignored (W3C): the turn gets a fresh trace id.
      model.push({ output: [message('hi')] });
      const own = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' }, { traceparent: '00-zzzz-1234-01' });
      expect(own.body.trace_id).toMatch(/^[0-9a-f]{32}$/);
      expect(own.body.trace_id).not.toBe(CALLER_TRACE);
    } finally {
      await svc.close();
      await model.close();
    }
  });
});
